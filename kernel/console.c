/* The serial console: output to COM1 (turning \n into \r\n for terminals),
 * and a line discipline for input. Characters arrive from the UART
 * interrupt; the line being typed is echoed and edited here, and a finished
 * line is moved into the input ring where /dev/cons readers take it. ^C
 * sends SIGINT to the foreground job, the process the shell named in
 * /dev/consctl, and its descendants. */
#include "console.h"
#include "arch.h"
#include "lib.h"
#include "proc.h"
#include "ring.h"
#include "abi/console.h"
#include "abi/errno.h"
#include <asm/signal.h>

static uint8_t inbuf[4096];
static struct ring input;       /* finished lines */
static uint32_t nlines;         /* '\n's in input */
static char line[CONS_LINEMAX];      /* the line being typed */
static uint32_t linelen;
static bool last_cr;
static uint32_t neof;           /* ^D typed on an empty line, not yet read */
static bool overflow;           /* the line outgrew line[]: dropped at its end */
static int fgpid;               /* the foreground job, 0 if none */

/* Names the process ^C kills (with its descendants); 0 for none. */
void console_set_fg(int pid)
{
	fgpid = pid;
}

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

/* Ends the line being typed as an empty line, so that the reader (the
 * shell at its prompt) starts afresh. */
static void put_empty_line(void)
{
	if (ring_space(&input) < 1)
		return;
	ring_put(&input, '\n');
	nlines++;
	wakeup(&input);
}

/* Sends SIGINT to pid and every process descended from it, as a
 * process group gets it: a program without a handler ends (130), one
 * with a handler goes on. Never pid 1: the first shell is what ^C
 * returns to. Returns whether pid was alive. */
static bool kill_tree(int pid)
{
	struct proc *p = pid > 1 ? proc_lookup((uint32_t)pid) : NULL;

	if (!p)
		return false;
	signal_post(p, SIGINT);
	for (int i = 0; i < NPROC; i++)
		if (procs[i].ppid == pid && procs[i].state != P_UNUSED &&
		    procs[i].state != P_ZOMBIE)
			kill_tree(procs[i].pid);
	return true;
}

/* ^C: the line being typed is thrown away; the foreground job is killed
 * (its parent, the shell, reports it and prompts again), or with none the
 * reader gets an empty line and prompts again. */
static void interrupt(void)
{
	linelen = 0;
	overflow = false;
	echo("^C\n");
	if (!kill_tree(fgpid))
		put_empty_line();
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
	if (c == 0x03) {
		interrupt();
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
		overflow = false;
		while (linelen > 0) {
			linelen--;
			echo("\b \b");
		}
		return;
	}
	if (c == '\n') {
		if (overflow) {
			/* Running the first CONS_LINEMAX - 1 characters of a longer
			 * line could do something other than what was typed. */
			kprintf("\nconsole: line longer than %d characters, dropped\n",
				CONS_LINEMAX - 1);
			overflow = false;
			linelen = 0;
			put_empty_line();
			return;
		}
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
		} else if (!overflow) {
			overflow = true;
			echo("\a");    /* the line is full: ring the bell once; Enter drops it */
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
		if (signal_interrupted(curproc())) {
			splx(s);
			return proc_killed() ? -EINTR : -ERESTARTSYS;
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
