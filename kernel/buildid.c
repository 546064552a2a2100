/* The kernel's GNU build-id, read from its own note (kernel.ld keeps it),
 * so the banner and kpinfo name the exact build a profile came from. */
#include "buildid.h"
#include "lib.h"

extern char _build_id_note[], _build_id_note_end[];

/* The GNU build-id from the kernel's own note, as hex. */
const char *kernel_build_id(void)
{
	static char hex[41];
	const uint32_t *n = (const uint32_t *)_build_id_note;
	uint32_t namesz, descsz;
	const uint8_t *desc;

	if (hex[0])
		return hex;
	if (_build_id_note_end - _build_id_note < 16)
		return "none";
	namesz = n[0];
	descsz = n[1];
	desc = (const uint8_t *)(n + 3) + ROUNDUP(namesz, 4);
	for (uint32_t i = 0; i < descsz && i < 20; i++)
		ksnprintf(hex + 2 * i, 3, "%02x", desc[i]);
	return hex;
}
