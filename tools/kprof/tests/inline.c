/* A tiny freestanding i386 program whose work is inlined: bubble, always
 * inlined into main, is a frame of its own only in the DWARF (for the
 * unit tests of a frame's name in every writer). */

int data[16];

static inline __attribute__((always_inline)) void bubble(int n) {
	for (int i = 0; i < n; i++)
		for (int j = 0; j + 1 < 16; j++)
			if (data[j] > data[j + 1]) {
				int t = data[j];
				data[j] = data[j + 1];
				data[j + 1] = t;
			}
}

__attribute__((noinline)) int main(void) {
	data[3] ^= data[0];
	bubble(16);
	return data[0];
}

void _start(void) {
	for (;;)
		data[1] += main();
}
