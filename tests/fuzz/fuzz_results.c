// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the result-file reader used by compare. Any input
 * must be either rejected with a reason or fully usable: validated
 * results are then compared with themselves, which touches every field
 * compare reads.
 */
#include <stdint.h>
#include <stdlib.h>

#include "bindlab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bl_why why = { "" };
	const struct bl_cmp_opts opts = { 10, BL_CMP_MIN_CHANGE_PCT };
	struct bl_cmp_row row;
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
		if (bl_compare_case(c, c, &opts, &row))
			abort();
		json_decref(bl_cmp_row_json(&row));
	}
	json_decref(cases);
	json_decref(root);
	return 0;
}
