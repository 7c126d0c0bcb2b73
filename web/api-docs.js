// The API documentation at GET /api/docs: Swagger UI from its npm package (swagger-ui-dist),
// copied beside this file by web/build.mjs (no CDN), reading the service's own OpenAPI document.
/* global SwaggerUIBundle */
const settings = JSON.parse(document.getElementById('docs-settings').textContent);
window.ui = SwaggerUIBundle({
  url: settings.openapi,
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: false,
  displayRequestDuration: true,
  filter: true,
  validatorUrl: null,
});
