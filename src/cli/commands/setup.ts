/** `agent-tracker setup [--dry-run] [--json]`: the same provisioning as `npm install` runs. */
import { formatReport, isInteractive, runSetup } from '../../setup/index.js';
import { CliError, parseCommandArgs } from '../context.js';
import type { Output } from '../context.js';

export async function run(args: string[], output: Output): Promise<void> {
  const { values } = parseCommandArgs(args, { 'dry-run': { type: 'boolean', default: false } }, false);
  const report = runSetup({ dryRun: values['dry-run'] });
  if (values.json) {
    output.out(JSON.stringify(report, null, 2));
  } else {
    // Someone typed this command, so they get the details even without a terminal on stdin.
    const { out, err } = formatReport(report, isInteractive(process.env, true));
    output.out(out);
    if (err) output.err(err);
  }
  const failed = report.steps.filter((step) => step.status === 'failed').map((step) => step.step);
  if (failed.length > 0) throw new CliError(`${failed.join(', ')} failed (the other steps ran); see the messages above`);
}
