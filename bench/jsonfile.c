// SPDX-License-Identifier: GPL-2.0
/*
 * JSON files: the one saver (through bl_file_write() of lib/files.c:
 * sorted keys, one trailing newline) and the one loader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bindlab.h"

int bl_json_save(json_t *root, const char *path, struct bl_why *why)
{
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS);
	size_t len;
	char *nl;
	int err;

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
