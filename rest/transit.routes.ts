import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

export const vehicleRoutes: Route[] = resourceRoutes({
  path: '/api/vehicles',
  tag: 'Vehicle',
  fields: { list: 'vehicles', read: 'vehicle', create: 'createVehicle', update: 'updateVehicle', remove: 'deleteVehicle' },
  noun: ['vehicle', 'vehicles'],
  summaries: {
    index: 'Vehicles of the active organization',
    search: 'Search vehicles (plates match in either form)',
    create: 'Register a vehicle in the active organization (a client id makes it idempotent)',
  },
});
