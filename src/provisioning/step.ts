/** The outcome of one provisioning step, as setup, postinstall and doctor report it. */

/** `config-folder`: the check that the config folder can be written at all, reported alone when it cannot. */
export type StepName = 'config-folder' | 'plugin-folder' | 'plugin-entry' | 'skills' | 'agents' | 'agents-md' | 'commands';

/** `changed`: wrote (or, in a dry run, would write); `unchanged`: nothing to do; `failed`: see messages. */
export type StepStatus = 'changed' | 'unchanged' | 'failed';

export interface StepResult {
  step: StepName;
  status: StepStatus;
  /** One line per thing done, skipped or wrong, saying what and why. */
  messages: string[];
}
