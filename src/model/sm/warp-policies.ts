/**
 * Every built-in warp scheduler policy, registered: the registry and base policies of
 * `warp-scheduler.ts` plus the policies in their own modules (PATS, ELF). Import the registry from
 * here (the issue stage, front ends) so a policy module is always loaded before a name is looked
 * up; a policy added later is one more import line.
 */
import './pats.ts';
import './elf-policy.ts';

export { createWarpSchedulerPolicy, warpSchedulerPolicyNames } from './warp-scheduler.ts';
