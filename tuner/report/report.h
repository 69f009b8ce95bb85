/* report.h -- `tuner report`: results files as one self-contained HTML
 * page (inline SVG and CSS, no script, no network), for runs or, with
 * --fleet, for a fleet and its history.  See docs/report.md. */
#ifndef TN_REPORT_H
#define TN_REPORT_H

/* `tuner report ...`: argv[0] is "report".  Returns the exit status: 0,
 * 1 a tool failed, 2 bad input (naming the file or option; nothing
 * written). */
int tn_report_main(int argc, char **argv);

#endif
