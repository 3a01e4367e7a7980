/* Runs the bridge firmware under simavr with its UART on a pseudo-terminal.
 *
 *   bridge_sim [--mcu atmega328p] [--freq 16000000] [--speed N] bridge-atmega328p.elf
 *
 * --speed N lets the simulated chip run up to N times as fast as the wall clock (for a
 * test of minutes of the chip's time; the host's keep-alives then come N times as
 * far apart in the chip's time).
 *
 * stdout, one line each, flushed:
 *   pty /dev/pts/N                 first: the device a host opens (115200 8N1)
 *   pin <ch> <port><bit> <level> <us>   a relay pin changed level (1 = high), at simulated us;
 *                                  channel 9 is the power output (D10)
 *   rx <us>                        a line end was handed to the chip's UART
 *   time <us>                      the answer to "time"
 * stdin, one command a line:
 *   adc <input> <microvolts>       the voltage on analog input A<input> (AVcc = 5 V)
 *   sense <0|1>                    the table's power as the sense input sees it (1 = on;
 *                                  on at start): the optocoupler pulls D11 low when on
 *   switch <n> <0|1>               a switch the sense input n (1..4) is across is pressed (1)
 *                                  or let go (0), by a hand or a relay: D12, D13, A4, A5
 *   time                           print the simulated time
 *   nxcl                           clear the tty's exclusive mode a killed host left set
 *   quit                           stop
 *
 * The simulated chip is paced so that it never runs ahead of the wall clock (a host's
 * keep-alives keep their meaning); on a busy machine it may run behind. Every time
 * printed is simulated time (cycles / frequency): timing claims are made on it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_adc.h"
#include "avr_extint.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define VCC_UV 5000000ULL
#define SLICE_US 200

struct relay_pin {
    char port;
    uint8_t bit;
};

/* relay channels 1..8, then the power output (D10) */
static const struct relay_pin pins_328p[9] = {
    {'D', 2}, {'D', 3}, {'D', 4}, {'D', 5}, {'D', 6}, {'D', 7}, {'B', 0}, {'B', 1}, {'B', 2}};
static const struct relay_pin pins_2560[9] = {
    {'E', 4}, {'E', 5}, {'G', 5}, {'E', 3}, {'H', 3}, {'H', 4}, {'H', 5}, {'H', 6}, {'B', 4}};
/* the power sense input (D11) */
static const struct relay_pin sense_328p = {'B', 3}, sense_2560 = {'B', 5};
/* the switch sense inputs 1..4 (D12, D13, A4, A5) */
static const struct relay_pin switch_328p[4] = {{'B', 4}, {'B', 5}, {'C', 4}, {'C', 5}};
static const struct relay_pin switch_2560[4] = {{'B', 6}, {'B', 7}, {'F', 4}, {'F', 5}};


static avr_t *avr;
static int master_fd = -1, slave_fd = -1;
static int xon = 1;
static uint8_t inbuf[4096];
static size_t in_len;
static int levels[9];

/* The sense input as the optocoupler drives it: low while the table has power. Set as
 * the pin's external level too, so the firmware's pull-up (written with every PORTB
 * write) does not pull it back up in simavr. simavr keeps one external mask and value
 * per port: every pin set so far is given again. */
static uint8_t ext_mask[26], ext_value[26];     /* per port: simavr keeps one of each */

static void set_sense(const struct relay_pin *p, unsigned on)
{
    int at = p->port - 'A';
    ext_mask[at] |= (uint8_t)(1u << p->bit);
    if (on)
        ext_value[at] &= (uint8_t)~(1u << p->bit);
    else
        ext_value[at] |= (uint8_t)(1u << p->bit);
    avr_ioport_external_t e = {.name = (unsigned long)p->port & 0x7F,
                               .mask = ext_mask[at], .value = ext_value[at]};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(p->port), &e);
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(p->port), p->bit), on ? 0 : 1);
}

static uint64_t sim_us(void)
{
    return avr->cycle * 1000000ULL / avr->frequency;
}

static void pin_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    intptr_t ch = (intptr_t)param;
    const struct relay_pin *p = (strcmp(avr->mmcu, "atmega2560") == 0 ? pins_2560
                                                                      : pins_328p) + ch;
    int level = value ? 1 : 0;
    if (levels[ch] == level)
        return;
    levels[ch] = level;
    printf("pin %d P%c%d %d %llu\n", (int)ch + 1, p->port, p->bit, level,
           (unsigned long long)sim_us());
    fflush(stdout);
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t c = (uint8_t)value;
    /* nobody reading: the byte is lost, as on a USB adapter with no port open */
    if (write(master_fd, &c, 1) < 0) {
    }
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    xon = 1;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    xon = 0;
}

/* simavr's messages go to stderr, warnings and errors only: stdout is the event log */
static void log_stderr(avr_t *a, const int level, const char *format, va_list ap)
{
    (void)a;
    if (level <= LOG_WARNING)
        vfprintf(stderr, format, ap);
}

static void no_sleep(avr_t *a, avr_cycle_count_t how_long)
{
    (void)a;
    (void)how_long;     /* pacing is done by the main loop */
}

static void control(char *cmd)
{
    unsigned input, level;
    unsigned long long uv;
    if (sscanf(cmd, "adc %u %llu", &input, &uv) == 2 && input < 8) {
        /* a 10-bit converter as the datasheet has it: floor(V * 1024 / AVcc), at most
         * 1023. simavr's own scaling is value * 1023 / vref, so with vref = 1023 the
         * value given is the count itself. */
        uint64_t count = uv * 1024ULL / VCC_UV;
        if (count > 1023)
            count = 1023;
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + input),
                      (uint32_t)count);
    } else if (sscanf(cmd, "sense %u", &input) == 1 && input < 2) {
        set_sense(strcmp(avr->mmcu, "atmega2560") == 0 ? &sense_2560 : &sense_328p, input);
        printf("sense %u\n", input);
    } else if (sscanf(cmd, "switch %u %u", &input, &level) == 2 && input >= 1 && input <= 4
               && level < 2) {
        set_sense((strcmp(avr->mmcu, "atmega2560") == 0 ? switch_2560 : switch_328p)
                  + input - 1, level);
        printf("switch %u %u %llu\n", input, level, (unsigned long long)sim_us());
    } else if (strncmp(cmd, "time", 4) == 0) {
        printf("time %llu\n", (unsigned long long)sim_us());
    } else if (strncmp(cmd, "nxcl", 4) == 0) {
        ioctl(slave_fd, TIOCNXCL);
        printf("nxcl\n");
    } else if (strncmp(cmd, "quit", 4) == 0) {
        exit(0);
    } else if (cmd[0]) {
        printf("error unknown control: %s\n", cmd);
    }
    fflush(stdout);
}

static uint64_t wall_us(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)(now.tv_sec - start->tv_sec) * 1000000ULL +
           (uint64_t)((now.tv_nsec - start->tv_nsec) / 1000);
}

int main(int argc, char **argv)
{
    const char *mcu = "atmega328p", *elf = NULL;
    uint32_t freq = 16000000;
    unsigned speed = 1;     /* how far ahead of the wall clock the chip may run */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mcu") && i + 1 < argc)
            mcu = argv[++i];
        else if (!strcmp(argv[i], "--freq") && i + 1 < argc)
            freq = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc)
            speed = (unsigned)strtoul(argv[++i], NULL, 10);
        else
            elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: bridge_sim [--mcu atmega328p] [--freq 16000000] [--speed 1] "
                "FIRMWARE.elf\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    avr_global_logger_set(log_stderr);
    elf_firmware_t f;
    memset(&f, 0, sizeof f);
    if (elf_read_firmware(elf, &f) != 0) {
        fprintf(stderr, "bridge_sim: cannot read %s\n", elf);
        return 1;
    }
    snprintf(f.mmcu, sizeof f.mmcu, "%s", mcu);
    f.frequency = freq;
    avr = avr_make_mcu_by_name(f.mmcu);
    if (!avr) {
        fprintf(stderr, "bridge_sim: simavr does not know %s\n", f.mmcu);
        return 1;
    }
    avr_init(avr);
    avr->log = LOG_ERROR;
    /* INT0/INT1 share pins with relays 1 and 2 and reset to low-level triggering:
     * simavr would poll a low pin every cycle although the firmware never enables them */
    for (uint8_t i = 0; i < 8; i++)
        avr_extint_set_strict_lvl_trig(avr, i, 0);
    avr_load_firmware(avr, &f);
    avr->vcc = avr->avcc = avr->aref = 1023;    /* see control(): counts, not millivolts */
    avr->sleep = no_sleep;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff, NULL);
    avr_irq_t *uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);

    const struct relay_pin *pins = strcmp(mcu, "atmega2560") == 0 ? pins_2560 : pins_328p;
    for (intptr_t ch = 0; ch < 9; ch++) {
        avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(pins[ch].port),
                                       pins[ch].bit);
        if (irq)
            avr_irq_register_notify(irq, pin_changed, (void *)ch);
    }

    /* the table has power at start, and no switch is pressed */
    set_sense(strcmp(mcu, "atmega2560") == 0 ? &sense_2560 : &sense_328p, 1);
    for (int i = 0; i < 4; i++)
        set_sense((strcmp(mcu, "atmega2560") == 0 ? switch_2560 : switch_328p) + i, 0);

    if (openpty(&master_fd, &slave_fd, NULL, NULL, NULL) != 0) {
        perror("bridge_sim: openpty");
        return 1;
    }
    struct termios t;
    tcgetattr(slave_fd, &t);
    cfmakeraw(&t);
    cfsetspeed(&t, B115200);
    tcsetattr(slave_fd, TCSANOW, &t);
    fcntl(master_fd, F_SETFL, fcntl(master_fd, F_GETFL) | O_NONBLOCK);
    printf("pty %s\n", ttyname(slave_fd));
    fflush(stdout);

    char ctl[256];
    size_t ctl_len = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint64_t slice = (uint64_t)freq / 1000000ULL * SLICE_US;
    for (;;) {
        avr_cycle_count_t until = avr->cycle + slice;
        while (avr->cycle < until) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                printf("stopped %s %llu\n", state == cpu_Done ? "done" : "crashed",
                       (unsigned long long)sim_us());
                fflush(stdout);
                return 1;
            }
        }
        size_t fed = 0;
        while (xon && fed < in_len) {
            if (inbuf[fed] == '\n') {
                printf("rx %llu\n", (unsigned long long)sim_us());
                fflush(stdout);
            }
            avr_raise_irq(uart_in, inbuf[fed++]);
        }
        memmove(inbuf, inbuf + fed, in_len - fed);
        in_len -= fed;

        uint64_t now = wall_us(&start) * (speed ? speed : 1), sim = sim_us();
        struct timespec wait = {0, 0};
        if (sim > now)
            wait.tv_nsec = (long)((sim - now) * 1000 / (speed ? speed : 1));
        if (wait.tv_nsec >= 1000000000L)
            wait.tv_nsec = 999999999L;
        struct pollfd fds[2] = {{master_fd, POLLIN, 0}, {0, POLLIN, 0}};
        int n = ppoll(fds, 2, &wait, NULL);
        if (n <= 0)
            continue;
        if ((fds[0].revents & POLLIN) && in_len < sizeof inbuf) {
            ssize_t got = read(master_fd, inbuf + in_len, sizeof inbuf - in_len);
            if (got > 0)
                in_len += (size_t)got;
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            /* every control that came in one write is done at one simulated time */
            char got_buf[256];
            ssize_t got = read(0, got_buf, sizeof got_buf);
            if (got <= 0)
                return 0;       /* the controlling process is gone */
            for (ssize_t i = 0; i < got; i++) {
                char c = got_buf[i];
                if (c == '\n') {
                    ctl[ctl_len] = 0;
                    control(ctl);
                    ctl_len = 0;
                } else if (ctl_len < sizeof ctl - 1) {
                    ctl[ctl_len++] = c;
                }
            }
        }
    }
}
