/** SDK v3 errors carry the service's error code as `name`; comparing names also works across SDK copies. */
export function isAwsError(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}
