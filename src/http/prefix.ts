// The one prefix of the REST API. Resource routes are declared relative to it and registered under
// it (app.ts), so a path is written once, without its version.
export const API_PREFIX = '/api/v1';
