// SPDX-License-Identifier: GPL-2.0
/*
 * JSON files: the one saver (through bl_file_write() of bench/files.c:
 * sorted keys, one trailing newline) and the one loader. A run file is
 * validated as its reader will validate it before it is written: what
 * the one reader would refuse (a case id twice, say) is never saved.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"
#include "results_tool.h"

int bl_json_save(json_t *root, const char *path, struct bl_why *why)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));
	char *text, *nl;
	size_t len;
	int err;

	if (schema && !strcmp(schema, BINDLAB_RUN_SCHEMA)) {
		err = bl_run_validate(root, path, why);
		if (err)
			return err;
	}
	text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text)
		return bl_why_set(why, ENOMEM, "%s: out of memory", path);
	len = strlen(text);
	nl = realloc(text, len + 2);
	if (!nl) {
		free(text);
		return bl_why_set(why, ENOMEM, "%s: out of memory", path);
	}
	nl[len] = '\n';
	nl[len + 1] = '\0';
	err = bl_file_write(path, nl, len + 1, why);
	free(nl);
	return err;
}

/*
 * A JSON file of ours to read: a regular file of bounded size, no key
 * twice; NULL with why set ("malformed JSON: ..." when it does not parse).
 */
json_t *bl_json_load(const char *path, struct bl_why *why)
{
	json_error_t jerr;
	json_t *root;
	FILE *f;

	f = bl_open_regular(path, BL_MAX_INPUT_BYTES, why);
	if (!f)
		return NULL;
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root)
		bl_why_set(why, EINVAL, "%s: %s%s", path,
			   jerr.line > 0 ? "malformed JSON: " : "", jerr.text);
	return root;
}

void bl_json_printable(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		json_string_set(j, bl_printable(json_string_value(j)));
		return;
	}
	json_object_foreach(j, k, v)
		bl_json_printable(v);
	json_array_foreach(j, i, v)
		bl_json_printable(v);
}
