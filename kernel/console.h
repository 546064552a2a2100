/* The serial console (COM1): output and line-edited input. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdint.h>

void console_init(void);
int console_read(char *buf, uint32_t n);
void console_rx(char c);       /* a byte from the UART, at interrupt time */
void console_set_fg(int pid);

#endif
