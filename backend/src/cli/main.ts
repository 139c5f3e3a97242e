import { codeVersion } from '../run/codeVersion.js';
import { type Command, parseFor, UsageError } from './args.js';
import { campaignCommand } from './campaignCommand.js';
import { kernelCommand } from './kernelCommand.js';
import { labCommand } from './labCommand.js';
import { imageCommand, metricsCommand, schemaCommand, validateCommand } from './miscCommands.js';
import { presetCommand } from './presetCommand.js';
import { qualifyCommand } from './qualifyCommand.js';
import { reindexCommand } from './reindexCommand.js';
import { rejudgeCommand } from './rejudgeCommand.js';
import { reportCommand } from './reportCommand.js';
import { runCommand } from './runCommand.js';
import { selftestCommand } from './selftestCommand.js';
import { serveCommand } from './serveCommand.js';
import { registerAddedStacks, stackCommand } from './stackCommand.js';
import { workerCommand } from './workerCommand.js';

const COMMANDS: Command[] = [
  runCommand,
  selftestCommand,
  campaignCommand,
  presetCommand,
  qualifyCommand,
  reportCommand,
  reindexCommand,
  rejudgeCommand,
  serveCommand,
  workerCommand,
  labCommand,
  validateCommand,
  metricsCommand,
  imageCommand,
  kernelCommand,
  stackCommand,
  schemaCommand,
];

const HELP = `lfnlab — a lab for comparing TCP stacks over long fat networks

usage: lfnlab COMMAND [options]    (lfnlab COMMAND --help for each)
       lfnlab --version               this lfnlab's version and git commit

${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

Specs are YAML or JSON; see examples/ and 'lfnlab schema'.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(HELP);
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(codeVersion());
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    console.error(`lfnlab: unknown command '${name}'\n\n${HELP}`);
    return 1;
  }
  // Stacks the user added (lfnlab stack add) are valid stack names for every command.
  registerAddedStacks();
  try {
    const { values, positionals } = parseFor(cmd, rest);
    if (values.help) {
      console.log(cmd.usage);
      return 0;
    }
    return await cmd.run(values, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`lfnlab ${cmd.name}: ${err.message}`);
      return 64;
    }
    throw err;
  }
}
