/** `--name N` from the command line as a number, or `dflt` when the flag is absent. */
export function numberArg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
