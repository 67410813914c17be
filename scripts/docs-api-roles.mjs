// Writes docs/api-roles.md from the routes' roles: `npm run docs:roles` after adding or changing a route.
import { writeFileSync } from "node:fs";
import { renderApiRolesDoc } from "../dist/host/api/roles-doc.js";
writeFileSync(new URL("../docs/api-roles.md", import.meta.url), await renderApiRolesDoc());
