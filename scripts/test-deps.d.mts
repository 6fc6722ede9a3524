// Types of test-deps.mjs for the TypeScript test helpers that share its executable search.
export const SBIN_DIRS: string[];
export function findExecutable(name: string, path?: string): string | undefined;
export function listedPackages(): string[];
export function missingPackages(): { pkg: string; why: string }[];
