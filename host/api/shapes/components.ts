/** The API's named shapes, each registered once with the server under its name (ref.ts). */
import type { FastifyInstance } from "fastify";
import { ERROR_BODY_SCHEMA } from "../errors.js";
import { BINDING_RECORD, RELEASE_BINDING } from "./binding.js";
import { ERROR_DATA } from "./error-data.js";
import { CONTROL_CHANGE, EXTENSION_ITEM, EXTENSION_LIST } from "./extension-list.js";
import { AUDIT_ROW, OPERATION_RECORD } from "./operation-record.js";
import { MANIFEST, PLUGIN_RECORD } from "./plugin.js";
import type { ShapeName } from "./ref.js";
import { ACTIVATION_RECORD, RELEASE_RECORD } from "./release.js";

export const SHAPES: Record<ShapeName, object> = {
  ErrorBody: ERROR_BODY_SCHEMA,
  ErrorData: ERROR_DATA,
  Manifest: MANIFEST,
  Plugin: PLUGIN_RECORD,
  Binding: BINDING_RECORD,
  ReleaseBinding: RELEASE_BINDING,
  Release: RELEASE_RECORD,
  Activation: ACTIVATION_RECORD,
  ExtensionItem: EXTENSION_ITEM,
  ExtensionList: EXTENSION_LIST,
  ControlChange: CONTROL_CHANGE,
  OperationRecord: OPERATION_RECORD,
  AuditRow: AUDIT_ROW,
};

/** Registers every named shape with `app`, before any route refers to one. */
export function addShapes(app: FastifyInstance): void {
  for (const [name, schema] of Object.entries(SHAPES)) app.addSchema({ $id: name, ...schema });
}
