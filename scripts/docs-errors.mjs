import { writeFileSync } from "node:fs";
import { renderErrorDocs } from "../dist/host/errors/docs.js";
writeFileSync(new URL("../abi/errors.md", import.meta.url), renderErrorDocs());
