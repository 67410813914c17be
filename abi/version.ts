/** The ABI this host speaks natively. A guest declares its own with the `sluice_abi_v<major>_<minor>` export marker. */
export const ABI_VERSION = { major: 1, minor: 0 } as const;
export const ABI_VERSION_STRING = `${ABI_VERSION.major}.${ABI_VERSION.minor}`;

/** Majors the host can serve side by side, with the newest minor it understands for each. */
export const SUPPORTED_ABI: Readonly<Record<number, number>> = { 1: 0 };

export const ABI_MARKER_PATTERN = /^sluice_abi_v(\d{1,4})_(\d{1,4})$/;
export const HOST_IMPORT_MODULE = "sluice_v1";
