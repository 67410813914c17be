/** Gateway mode: the OpenAI-compatible server, its key store and the key management routes. */
export { createGateway, gatewayRoutes } from "./gateway.js";
export type { GatewayOptions } from "./options.js";
export { GatewayKeys, GATEWAY_KEY_PREFIX, type GatewayKeyRecord } from "./keys.js";
export { gatewayKeyRoutes, type GatewayKeyRoutesOptions } from "./key-routes.js";
