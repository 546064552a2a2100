/* heattest: code with known exact instruction counts for the heat engine's
 * test. Every labelled instruction below runs a known number of times:
 *   ht_loop      the head of a 1000-trip loop: 1000, BLOCK_ENTER
 *   ht_outer     an outer loop of 7 trips: 7; ht_inner inside it, 13
 *                trips each: 91
 *   ht_f_*       eight functions, each called 5 times by one call form:
 *                rel32 (E8), call eax, call [disp32], call [ebx],
 *                call [ebx+disp8], call [ebx+esi*4+disp32], far direct
 *                (9A) and far indirect (FF /3): 5 each, CALLED
 *   ht_jmp       reached by a jmp, never called: 5, BLOCK_ENTER, not CALLED
 *   ht_tf        a 50-trip loop after the program cleared TF with popf:
 *                still 50, so the process cannot leave the tracing
 * The host test reads the addresses from the ELF's symbols. */
#include "ulib.h"
#include "stdio.h"

void ht_run(void);
uint32_t ht_ptr[8];             /* call targets for the indirect forms */
uint32_t ht_far[2];             /* offset, selector: for lcall *ht_far */

__asm__(
	".text\n"
	".globl ht_run\n"
	"ht_run:\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	/* a 1000-trip loop */
	"	mov $1000, %ecx\n"
	".globl ht_loop\n"
	"ht_loop:\n"
	"	add $1, %eax\n"
	"	dec %ecx\n"
	"	jnz ht_loop\n"
	/* 7 x 13 */
	"	mov $7, %edx\n"
	".globl ht_outer\n"
	"ht_outer:\n"
	"	mov $13, %ecx\n"
	".globl ht_inner\n"
	"ht_inner:\n"
	"	dec %ecx\n"
	"	jnz ht_inner\n"
	"	dec %edx\n"
	"	jnz ht_outer\n"
	/* every call form, 5 times */
	"	mov $5, %edi\n"
	"1:\n"
	"	call ht_f_rel\n"                 /* E8 rel32 */
	"	mov $ht_f_eax, %eax\n"
	"	call *%eax\n"                    /* FF /2, mod 3 */
	"	call *ht_ptr\n"                  /* FF /2, disp32 alone */
	"	mov $ht_ptr+4, %ebx\n"
	"	call *(%ebx)\n"                  /* FF /2, mod 0 */
	"	call *4(%ebx)\n"                 /* FF /2, mod 1 (disp8) */
	"	mov $ht_ptr-0x100, %ebx\n"
	"	mov $3, %esi\n"
	"	call *0x100(%ebx,%esi,4)\n"      /* FF /2, mod 2 with SIB */
	".globl ht_far_site\n"
	"ht_far_site:\n"
	"	lcall $0, $ht_f_far\n"           /* 9A: main patches in the selector */
	"	lcall *ht_far\n"                 /* FF /3 */
	"	jmp ht_jmp\n"
	"	ud2\n"
	".globl ht_jmp\n"
	"ht_jmp:\n"
	"	dec %edi\n"
	"	jnz 1b\n"
	/* clear TF with popf, then a 50-trip loop */
	"	pushf\n"
	"	andl $0xFFFFFEFF, (%esp)\n"
	"	popf\n"
	"	mov $50, %ecx\n"
	".globl ht_tf\n"
	"ht_tf:\n"
	"	dec %ecx\n"
	"	jnz ht_tf\n"
	"	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	ret\n"
	".globl ht_f_rel, ht_f_eax, ht_f_mem, ht_f_ebx, ht_f_disp8, ht_f_sib, ht_f_far, ht_f_farmem\n"
	"ht_f_rel: ret\n"
	"ht_f_eax: ret\n"
	"ht_f_mem: ret\n"
	"ht_f_ebx: ret\n"
	"ht_f_disp8: ret\n"
	"ht_f_sib: ret\n"
	"ht_f_far: lret\n"
	"ht_f_farmem: lret\n"
);

void ht_f_mem(void), ht_f_ebx(void), ht_f_disp8(void), ht_f_sib(void), ht_f_farmem(void);
extern uint8_t ht_far_site[];

int main(void)
{
	uint16_t cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	ht_ptr[0] = (uint32_t)ht_f_mem;
	ht_ptr[1] = (uint32_t)ht_f_ebx;
	ht_ptr[2] = (uint32_t)ht_f_disp8;
	ht_ptr[3] = (uint32_t)ht_f_sib;
	ht_far[0] = (uint32_t)ht_f_farmem;
	ht_far[1] = cs;
	/* 9A, offset (4 bytes), selector (2): user text is writable here */
	ht_far_site[5] = cs & 0xFF;
	ht_far_site[6] = cs >> 8;
	ht_run();
	printf("heattest: done\n");
	return 0;
}
