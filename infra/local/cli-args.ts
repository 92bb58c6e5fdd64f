/**
 * The operator CLIs' arguments, as every command-line tool answers them: `--help` (or `-h`) prints
 * the usage and exits 0; an option the command does not know, or a value it cannot take, prints
 * what was wrong and the usage and exits 2. `node:util`'s parseArgs throws on both, which printed a
 * stack trace (ERR_PARSE_ARGS_UNKNOWN_OPTION) instead of the usage.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses the process arguments, or ends the process with the usage.
 * @param usage the command's usage text
 * @param options its options (`help` is added)
 * @param argv the arguments (default: the process's)
 */
const parseCliArgs = <O extends Options>(usage: string, options: O, argv: string[] = process.argv.slice(2)) => {
  const config = { args: argv, allowPositionals: true as const, options: { ...options, help: { type: 'boolean' as const, short: 'h' } } };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    return process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return process.exit(0);
  }
  return parsed;
};

export { parseCliArgs };
