/** An error as the host keeps it beside a result (a quarantine's last error, a dry run's failure): its stable code, message and details. */
export const ERROR_DATA = {
  type: "object", additionalProperties: false, required: ["code", "message"],
  properties: {
    code: { type: "string", description: "A stable code of abi/errors.md." },
    message: { type: "string" },
    details: { type: "object", additionalProperties: true },
  },
} as const;
