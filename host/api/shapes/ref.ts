/**
 * A reference to one of the API's named shapes (components.ts): the server registers each
 * once, the serializer and the validators resolve the reference, and the OpenAPI document
 * lists the shape once under `components.schemas` instead of writing it out at every route.
 */
export type ShapeName =
  | "ErrorBody" | "ErrorData" | "Manifest" | "Plugin" | "Binding" | "ReleaseBinding" | "Release" | "Activation"
  | "ExtensionItem" | "ExtensionList" | "ControlChange" | "OperationRecord" | "AuditRow";

export const ref = <N extends ShapeName>(name: N) => ({ $ref: `${name}#` }) as const;
