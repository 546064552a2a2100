/* The serial console: output to COM1 (turning \n into \r\n for terminals),
 * and a line discipline for input. Characters arrive from the UART
 * interrupt; the line being typed is echoed and edited here, and a finished
 * line is moved into the input ring where /dev/cons readers take it. */
#include "console.h"
#include "arch.h"
#include "lib.h"
#include "proc.h"
#include "ring.h"
#include "abi/console.h"
#include "abi/errno.h"

static uint8_t inbuf[4096];
static struct ring input;       /* finished lines */
static uint32_t nlines;         /* '\n's in input */
static char line[CONS_LINEMAX];      /* the line being typed */
static uint32_t linelen;
static bool last_cr;
static uint32_t neof;           /* ^D typed on an empty line, not yet read */

void console_init(void)
{
	ring_init(&input, inbuf, sizeof inbuf);
}

void console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_uart_putc(0, '\r');
		arch_uart_putc(0, s[i]);
	}
}

static void echo(const char *s)
{
	console_write(s, strlen(s));
}

/* Called from the UART interrupt, interrupts off. */
void console_rx(char c)
{
	if (c == '\n' && last_cr) {     /* \r\n from a terminal: one line */
		last_cr = false;
		return;
	}
	last_cr = c == '\r';
	if (c == '\r')
		c = '\n';
	if (c == 0x7F || c == '\b') {
		if (linelen > 0) {
			linelen--;
			echo("\b \b");
		}
		return;
	}
	if (c == 0x04) {                /* ^D on an empty line: end of input */
		if (linelen == 0) {
			neof++;
			echo("^D\n");
			wakeup(&input);
		}
		return;
	}
	if (c == 0x15) {                /* ^U: erase the line */
		while (linelen > 0) {
			linelen--;
			echo("\b \b");
		}
		return;
	}
	if (c == '\n') {
		if (ring_space(&input) < linelen + 1) {
			echo("\r\nconsole: input full, line dropped\r\n");
			linelen = 0;
			return;
		}
		for (uint32_t i = 0; i < linelen; i++)
			ring_put(&input, line[i]);
		ring_put(&input, '\n');
		nlines++;
		linelen = 0;
		echo("\n");
		wakeup(&input);
		return;
	}
	if ((c >= ' ' && c < 0x7F) || c == '\t') {
		if (linelen < CONS_LINEMAX - 1) {
			line[linelen++] = c;
			char s[2] = { c, 0 };
			echo(s);
		} else {
			echo("\a");    /* the line is full: ring the bell, drop it */
		}
	}
}

/* Reads at most n bytes of the next line (up to and including its '\n'),
 * sleeping until a whole line is there. Returns 0 for a ^D typed on an
 * empty line (end of input), -EINTR if killed. */
int console_read(char *buf, uint32_t n)
{
	uint32_t s = splhi();
	uint32_t got = 0;
	uint8_t c;

	while (nlines == 0) {
		if (neof) {
			neof--;
			splx(s);
			return 0;
		}
		if (proc_killed()) {
			splx(s);
			return -EINTR;
		}
		sleep_on(&input);
	}
	while (got < n && ring_get(&input, &c)) {
		buf[got++] = c;
		if (c == '\n') {
			nlines--;
			break;
		}
	}
	splx(s);
	return got;
}
