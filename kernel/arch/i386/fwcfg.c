/* QEMU's fw_cfg device, read through its I/O ports. The test runner passes
 * extra kernel command-line words as the file opt/kprof/cmdline, so one
 * ISO serves every boot configuration. */
#include "arch.h"
#include "abi/be32.h"
#include "lib.h"
#include "x86.h"

#define FW_CFG_SEL   0x510
#define FW_CFG_DATA  0x511
#define FW_CFG_SIG   0x0000
#define FW_CFG_DIR   0x0019

static void readbytes(void *buf, uint32_t n)
{
	uint8_t *p = buf;
	while (n--)
		*p++ = inb(FW_CFG_DATA);
}

int arch_fwcfg_read(const char *name, char *buf, int size)
{
	uint8_t sig[4], n[4], ent[64];
	uint32_t count;

	outw(FW_CFG_SEL, FW_CFG_SIG);
	readbytes(sig, 4);
	if (memcmp(sig, "QEMU", 4) != 0)
		return -1;
	outw(FW_CFG_SEL, FW_CFG_DIR);
	readbytes(n, 4);
	count = be32_get(n);
	for (uint32_t i = 0; i < count && i < 4096; i++) {
		/* struct FWCfgFile: be32 size, be16 select, u16 reserved, char name[56] */
		readbytes(ent, 64);
		ent[63] = 0;
		if (strcmp((char *)ent + 8, name) == 0) {
			uint32_t len = be32_get(ent);
			uint16_t sel = (uint16_t)(ent[4] << 8 | ent[5]);
			if (size <= 0)
				return -1;
			if (len > (uint32_t)size - 1)
				len = size - 1;
			outw(FW_CFG_SEL, sel);
			readbytes(buf, len);
			buf[len] = 0;
			return (int)len;
		}
	}
	return -1;
}
