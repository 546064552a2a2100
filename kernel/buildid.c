/* Build-ids, the GNU notes that name the exact build a profile came from:
 * the kernel's own (kernel.ld keeps the note), and the one formatter that
 * turns any build-id into hex for the banner, kpinfo and the engines. */
#include "buildid.h"
#include "lib.h"

extern char _build_id_note[], _build_id_note_end[];

char *buildid_hex(char *hex, size_t size, const uint8_t *id, uint32_t n)
{
	if (size == 0)
		return hex;
	hex[0] = 0;
	if (n == 0)
		strlcpy(hex, "none", size);
	for (uint32_t i = 0; i < n && 2 * i + 2 < size; i++)
		ksnprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

uint32_t kernel_build_id_bytes(const uint8_t **id)
{
	const uint32_t *n = (const uint32_t *)_build_id_note;

	if (_build_id_note_end - _build_id_note < 16)
		return 0;
	*id = (const uint8_t *)(n + 3) + ROUNDUP(n[0], 4);
	return MIN(n[1], BUILDID_MAX);
}

const char *kernel_build_id(void)
{
	static char hex[2 * BUILDID_MAX + 1];
	const uint8_t *id = NULL;

	if (!hex[0])
		buildid_hex(hex, sizeof hex, id, kernel_build_id_bytes(&id));
	return hex;
}
