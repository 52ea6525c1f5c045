// Errors of the command-line program. The message is printed as one line, `error: <message>`, and the
// process exits with the code: 1 for a failure, 2 for a usage mistake.
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, 2);
}
