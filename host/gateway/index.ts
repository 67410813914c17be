/** Gateway mode: the OpenAI-compatible server, its key store and the key management routes. */
export { createGateway, gatewayRoutes } from "./gateway.js";
export type { GatewayOptions } from "./options.js";
export { GatewayKeys, GATEWAY_KEY_PREFIX, type GatewayKeyRecord } from "../keys/keys.js";
export { gatewayKeyRoutes, type GatewayKeyRoutesOptions } from "../api/routes/keys.js";
