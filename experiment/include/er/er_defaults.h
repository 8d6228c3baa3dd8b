/* The settings' defaults that both the runtime (when a setting is absent)
 * and GDB's plugin (what `collector show` says before anything is typed)
 * use: GDB reads them through libgdbcol-shared (gdbcol_setting_default). */
#ifndef GDBCOL_ER_DEFAULTS_H
#define GDBCOL_ER_DEFAULTS_H

#define ER_DEFAULT_LIMIT_MB 2000        /* dbx's data limit */
#define ER_DEFAULT_SAMPLE_PERIOD_MS 1000 /* dbx: periodic sample points, 1 s */

#endif
