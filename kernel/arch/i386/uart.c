/* 16550 UART driver. COM1 is the console: polled output, interrupt-driven
 * input handed to the console line discipline. COM2 is raw output only,
 * the export channel (/dev/eia1). */
#include "arch.h"
#include "console.h"
#include "i386.h"
#include "x86.h"

static const uint16_t base[2] = { 0x3F8, 0x2F8 };
static bool present[2];


/* bytes that arrived before the kernel set the UART up (the FIFO reset
 * below would drop them); handed to the console with the first input */
static char early[16];
static int nearly;

static void setup(int i)
{
	uint16_t b = base[i];

	while (i == 0 && nearly < (int)sizeof early && inb(b + 5) != 0xFF && (inb(b + 5) & 0x01))
		early[nearly++] = (char)inb(b);

	outb(b + 1, 0x00);          /* interrupts off */
	outb(b + 3, 0x80);          /* DLAB */
	outb(b + 0, 1);             /* 115200 baud */
	outb(b + 1, 0);
	outb(b + 3, 0x03);          /* 8N1 */
	outb(b + 2, 0xC7);          /* FIFO on, cleared, 14-byte threshold */
	outb(b + 4, 0x0B);          /* DTR, RTS, OUT2 (routes the IRQ) */
	present[i] = inb(b + 5) != 0xFF;
}

void arch_uart_init(void)
{
	setup(0);
	setup(1);
}

/* Called once the PIC is set up: turn on receive interrupts, and take
 * whatever arrived before them. */
void arch_uart_enable_rx(void)
{
	if (!present[0])
		return;
	for (int i = 0; i < nearly; i++)
		console_rx(early[i]);
	outb(base[0] + 1, 0x01);    /* receive-data interrupt */
	pic_enable(4);
	uart_intr();
}

void arch_uart_putc(int port, char c)
{
	uint16_t b = base[port];

	if (!present[port])
		return;
	while (!(inb(b + 5) & 0x20))
		;
	outb(b, (uint8_t)c);
}

/* IRQ 4: drain the receive FIFO into the console. */
void uart_intr(void)
{
	while (inb(base[0] + 5) & 0x01)
		console_rx((char)inb(base[0]));
}
