/* Symbols that nest and alias, as hand-written assembler makes them:
 * `outer` (48 bytes) holds `inner` (8 bytes at +16), and `gl` (global, 8
 * bytes) and `wk` (weak, 16 bytes) start at one address. Each byte has
 * exactly one right owner, the one libdwfl names. */
__asm__(".text\n"
	".globl outer\n.type outer, @function\n"
	"outer:\n\t.fill 16, 1, 0x90\n"
	".globl inner\n.type inner, @function\n"
	"inner:\n\t.fill 8, 1, 0x90\n"
	".size inner, 8\n"
	"\t.fill 24, 1, 0x90\n"
	".size outer, 48\n"
	".globl gl\n.type gl, @function\n"
	".weak wk\n.type wk, @function\n"
	"gl:\nwk:\n\t.fill 16, 1, 0x90\n"
	".size gl, 8\n.size wk, 16\n"
	".globl _start\n.type _start, @function\n"
	"_start:\n\tret\n"
	".size _start, 1\n");
