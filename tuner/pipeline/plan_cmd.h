/* plan_cmd.h -- `tuner plan`: the shared-memory plan a config declares
 * for its own kernel, priced per declared access and per launch.
 *
 * For every valid point of the space (or the ids asked for) and every
 * problem: each declared access's warp-level shared-memory instructions
 * and wavefronts per launch, by the kind Nsight Compute counts them under
 * (ld, st, ldsm, stsm, ldgsts: model.h), and the launch's totals by kind.
 * No GPU: it is the model the run prunes with, taken apart by access, for
 * scripts/plan_vs_ncu.py to hold against ncu (docs/plan-check.md). */
#ifndef TN_PLAN_CMD_H
#define TN_PLAN_CMD_H

/* The subcommand; argv[0] is "plan".  Returns the exit status: 0, 2 for
 * bad input (options, the config, a config without a plan, an id that is
 * not a valid point), 1 when output cannot be written. */
int tn_plan_cmd_main(int argc, char **argv);

#endif
