/** The management HTTP API. */
export { createApiServer, startApiServer, type ApiOptions, type ServeOptions } from "./server.js";
export { toSluiceError, type ErrorBody } from "./errors.js";
