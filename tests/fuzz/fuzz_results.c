// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the result-file reader used by compare. Any input
 * must be either rejected with a reason or fully usable: validated
 * results are then compared with themselves, one run a side and two
 * (both methods), which touches every field compare reads.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bindlab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bl_why why = { "" };
	const struct bl_cmp_opts opts = {
		10, BL_CMP_MIN_CHANGE_PCT, BL_CMP_DRIFT_PCT
	};
	struct bl_cmp_side side = { NULL };
	struct bl_cmp_row row;
	json_t *runs[2];
	json_error_t jerr;
	json_t *root, *cases, *c;
	size_t i;

	root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
			  &jerr);
	if (!root)
		return 0;
	if (bl_run_validate(root, "fuzz", &why)) {
		if (!why.msg[0])
			abort();	/* a rejection must say why */
		json_decref(root);
		return 0;
	}
	cases = bl_run_cases(root);
	json_array_foreach(cases, i, c) {
		runs[0] = runs[1] = c;
		for (side.runs = runs, side.n = 1; side.n <= 2; side.n++) {
			if (bl_compare_case(&side, &side, &opts, &row))
				abort();
			json_decref(bl_cmp_row_json(&row));
		}
	}
	json_decref(cases);
	json_decref(root);
	return 0;
}
