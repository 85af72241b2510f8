// SPDX-License-Identifier: GPL-2.0
/*
 * A JSON document to a file (or "-"), through the one writer of files,
 * bl_file_write() of lib/files.c: sorted keys, one trailing newline.
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
