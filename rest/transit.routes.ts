import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };

export const vehicleRoutes: Route[] = [
  { method: 'GET', path: '/api/vehicles', auth: true, operation: 'VehicleIndex', status: 200, page: 'page', filter: { from: 'query', variable: 'filter' }, pick: 'vehicles', paged: true, summary: 'Vehicles of the active organization', tag: 'Vehicle' },
  { method: 'POST', path: '/api/vehicles/search', auth: true, operation: 'VehicleSearch', status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: 'vehicles', paged: true, summary: 'Search vehicles (plates match in either form)', tag: 'Vehicle' },
  { method: 'POST', path: '/api/vehicles', auth: true, operation: 'VehicleCreate', status: 201, body: 'input', pick: 'createVehicle', summary: 'Register a vehicle in the active organization (a client id makes it idempotent)', tag: 'Vehicle' },
  { method: 'GET', path: '/api/vehicles/:id', auth: true, operation: 'VehicleRead', status: 200, params: id, pick: 'vehicle', summary: 'One vehicle', tag: 'Vehicle' },
  { method: 'PUT', path: '/api/vehicles/:id', auth: true, operation: 'VehicleUpdate', status: 200, params: id, body: 'input', pick: 'updateVehicle', summary: 'Update a vehicle', tag: 'Vehicle' },
  { method: 'PATCH', path: '/api/vehicles/:id', auth: true, operation: 'VehicleUpdate', status: 200, params: id, body: 'input', pick: 'updateVehicle', summary: 'Update a vehicle', tag: 'Vehicle' },
  { method: 'DELETE', path: '/api/vehicles/:id', auth: true, operation: 'VehicleDelete', status: 204, params: id, pick: 'deleteVehicle', summary: 'Remove a vehicle', tag: 'Vehicle' },
];
