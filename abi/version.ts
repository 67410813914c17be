/** The ABI this host speaks natively. A guest declares its own with the `sluice_abi_v<major>_<minor>` export marker. */
export const ABI_VERSION = { major: 1, minor: 2 } as const;
/** {@link ABI_VERSION} as `major.minor`, the form manifests and errors use. */
export const ABI_VERSION_STRING = `${ABI_VERSION.major}.${ABI_VERSION.minor}`;

/** Majors the host can serve side by side, with the newest minor it understands for each. */
export const SUPPORTED_ABI: Readonly<Record<number, number>> = { 1: 2 };

/** The canonical marker: decimal numbers without leading zeros (`sluice_abi_v01_00` is not a marker of 1.0). */
export const ABI_MARKER_PATTERN = /^sluice_abi_v(0|[1-9]\d{0,3})_(0|[1-9]\d{0,3})$/;
/** Any export that looks like it means to be a marker; one that is not canonical is refused, not ignored. */
export const ABI_MARKER_PREFIX = "sluice_abi_";
/** The import module name every host function of the ABI lives under. */
export const HOST_IMPORT_MODULE = "sluice_v1";
