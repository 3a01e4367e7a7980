/* The Jantaku bridge: relays across a stock table's switches and a point-stick reader,
 * driven by ASCII lines over the USB serial port (115200 8N1). docs/bridge.md is the
 * protocol; this file is one implementation of it, hardware_sim/bridge_model.py the other.
 *
 * Safety rests on two timers that need no host: every press ends at its own time
 * (Timer1, 1 ms tick), and the watchdog opens every relay when no line has arrived for
 * the watchdog time while a relay is closed. The chip's own hardware watchdog resets it
 * (relays open at start) if this loop ever hangs. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <stdint.h>
#include <string.h>

#include "pins.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#ifndef BAUD
#define BAUD 115200UL
#endif
#ifndef RELAY_ACTIVE_LOW
#define RELAY_ACTIVE_LOW 0
#endif
#ifndef R_REF_OHMS
#define R_REF_OHMS 4700UL
#endif
#if R_REF_OHMS < 1000 || R_REF_OHMS > 100000
#error "R_REF_OHMS must be 1000 to 100000"
#endif

#define VERSION "1.0"
#define PRESS_MAX_MS 10000
#define WD_DEFAULT_MS 1500
#define WD_MIN_MS 100
#define WD_MAX_MS 60000
#define LINE_MAX 63
#define SAMPLES 16
/* points = conductance in uS x 100, conductance from the divider with the reference */
#define K_POINTS ((100000000UL + R_REF_OHMS / 2) / R_REF_OHMS)

#if defined(USART0_RX_vect)
#define RX_VECT USART0_RX_vect
#else
#define RX_VECT USART_RX_vect
#endif

static volatile uint8_t *const relay_port[CHANNELS] = RELAY_PORTS;
static volatile uint8_t *const relay_ddr[CHANNELS] = RELAY_DDRS;
static const uint8_t relay_bit[CHANNELS] = RELAY_BITS;

/* ms left before a channel opens (0: open); written by the main loop with interrupts off */
static volatile uint16_t remaining[CHANNELS];
static volatile uint16_t quiet_ms;      /* since the last complete line */
static volatile uint16_t wd_ms = WD_DEFAULT_MS;
static volatile uint8_t wd_fired;       /* the watchdog opened relays since the last answer */

static volatile uint8_t rx_buf[64];
static volatile uint8_t rx_head, rx_tail;

static char line[LINE_MAX + 1];
static uint8_t line_len, line_long;
static char out[128];
static uint8_t out_len;
static uint16_t last_id;
static char last_cmd[LINE_MAX + 1];
static char last_answer[128];

/* ---------------------------------------------------------------- relays */
static void relay_write(uint8_t i, uint8_t closed)
{
    uint8_t high = RELAY_ACTIVE_LOW ? !closed : closed;
    if (high)
        *relay_port[i] |= (uint8_t)(1 << relay_bit[i]);
    else
        *relay_port[i] &= (uint8_t)~(1 << relay_bit[i]);
}

static void open_all(void)
{
    for (uint8_t i = 0; i < CHANNELS; i++) {
        remaining[i] = 0;
        relay_write(i, 0);
    }
}

ISR(TIMER1_COMPA_vect)
{
    uint8_t any = 0;
    for (uint8_t i = 0; i < CHANNELS; i++) {
        if (remaining[i]) {
            if (--remaining[i] == 0)
                relay_write(i, 0);
            else
                any = 1;
        }
    }
    if (quiet_ms != 0xFFFF)
        quiet_ms++;
    if (any && quiet_ms >= wd_ms) {
        open_all();
        wd_fired = 1;
    }
}

/* ---------------------------------------------------------------- serial */
ISR(RX_VECT)
{
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & 63);
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

static void tx(char c)
{
    while (!(UCSR0A & (1 << UDRE0)))
        wdt_reset();
    UDR0 = (uint8_t)c;
}

static void put(const char *s)
{
    while (*s && out_len < sizeof out - 1)
        out[out_len++] = *s++;
    out[out_len] = 0;
}

static void put_P(PGM_P s)
{
    char c;
    while ((c = (char)pgm_read_byte(s++)) && out_len < sizeof out - 1)
        out[out_len++] = c;
    out[out_len] = 0;
}

static void put_u(uint32_t v)
{
    char digits[11];
    uint8_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && out_len < sizeof out - 1)
        out[out_len++] = digits[--n];
    out[out_len] = 0;
}

/* ---------------------------------------------------------------- sticks */
static uint16_t adc_sum(uint8_t ch)
{
    ADMUX = (uint8_t)((1 << REFS0) | (ch & 7));     /* AVcc reference */
    uint16_t sum = 0;
    for (uint8_t n = 0; n <= SAMPLES; n++) {
        ADCSRA |= (1 << ADSC);
        while (ADCSRA & (1 << ADSC))
            ;
        uint16_t v = ADCL;
        v |= (uint16_t)ADCH << 8;
        if (n)          /* the first conversion after switching the input is dropped */
            sum += v;
    }
    return sum;
}

/* Points in a drawer from the sum of SAMPLES readings: the sticks and the reference
 * resistor form a divider from AVcc, so R_sticks = R_ref * x / (1024 - x) with x the
 * mean reading taken at the middle of its step, and points = 10^8 / (R_ref * ...) */
static uint32_t points_of(uint16_t sum)
{
    if (sum + 8 >= 1024UL * SAMPLES)
        return 0;
    uint32_t num = 1024UL * SAMPLES - sum - 8;
    uint32_t den = (uint32_t)sum + 8;
    uint32_t pts = num * K_POINTS / den;
    if (pts > 9999900UL)
        pts = 9999900UL;
    return (pts + 50) / 100 * 100;
}

/* ---------------------------------------------------------------- commands */
static uint8_t is_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* a decimal of at most 5 digits, or -1 */
static int32_t number(const char *s)
{
    if (!is_digits(s) || strlen(s) > 5)
        return -1;
    int32_t v = 0;
    for (; *s; s++)
        v = v * 10 + (*s - '0');
    return v;
}

static uint8_t same_word(const char *a, PGM_P b)
{
    char c;
    while ((c = (char)pgm_read_byte(b++))) {
        char x = *a++;
        if (x >= 'a' && x <= 'z')
            x = (char)(x - 32);
        if (x != c)
            return 0;
    }
    return *a == 0;
}

static void head(uint8_t ok, uint16_t id)
{
    out_len = 0;
    put_P(ok ? PSTR("OK ") : PSTR("ERR "));
    if (id)
        put_u(id);
    else
        put("-");
    put(" ");
}

static void err(uint16_t id, PGM_P code, PGM_P words)
{
    head(0, id);
    put_P(code);
    put(" ");
    put_P(words);
}

static void channel_list(uint8_t mask)
{
    uint8_t first = 1;
    for (uint8_t i = 0; i < CHANNELS; i++) {
        if (mask & (1 << i)) {
            if (!first)
                put(",");
            put_u(i + 1u);
            first = 0;
        }
    }
}

static uint8_t closed_mask(void)
{
    uint8_t mask = 0;
    for (uint8_t i = 0; i < CHANNELS; i++)
        if (remaining[i])
            mask |= (uint8_t)(1 << i);
    return mask;
}

static void close_for(uint8_t mask, uint16_t ms)
{
    cli();
    for (uint8_t i = 0; i < CHANNELS; i++) {
        if (mask & (1 << i)) {
            remaining[i] = (uint16_t)(ms + 1);   /* never shorter than asked */
            relay_write(i, 1);
        }
    }
    sei();
}

/* the channels of "3" or "4,5": a bit mask, 0 when malformed, 0xFF.. for a bad number */
static int16_t parse_channels(const char *s)
{
    int16_t mask = 0;
    char part[6];
    while (*s) {
        uint8_t n = 0;
        while (*s && *s != ',' && n < 5)
            part[n++] = *s++;
        part[n] = 0;
        if (*s && *s != ',')
            return 0;
        if (*s == ',') {
            s++;
            if (!*s)
                return 0;
        }
        int32_t ch = number(part);
        if (ch < 0)
            return 0;
        if (ch < 1 || ch > CHANNELS)
            return -1;
        mask |= (int16_t)(1 << (ch - 1));
    }
    return mask;
}

static void run(uint16_t id, char **arg, uint8_t argc)
{
    const char *verb = arg[0];
    if (same_word(verb, PSTR("PING"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("PING takes nothing after it"));
        head(1, id);
        put_P(PSTR("PING "));
        uint8_t mask = closed_mask();
        if (mask) {
            put_P(PSTR("CLOSED "));
            channel_list(mask);
        } else {
            put_P(PSTR("OPEN"));
        }
    } else if (same_word(verb, PSTR("PRESS")) || same_word(verb, PSTR("HOLD"))) {
        uint8_t hold = same_word(verb, PSTR("HOLD"));
        if (argc != 3) {
            if (hold)
                return err(id, PSTR("ARGS"),
                           PSTR("HOLD needs channels and a time in ms, as in HOLD 4,5 3000"));
            return err(id, PSTR("ARGS"),
                       PSTR("PRESS needs a channel and a time in ms, as in PRESS 3 300"));
        }
        int16_t mask = parse_channels(arg[1]);
        if (mask < 0)
            return err(id, PSTR("CHANNEL"), PSTR("no such relay; the channels are 1 to 8"));
        if (!hold && strchr(arg[1], ','))
            return err(id, PSTR("ARGS"), PSTR("PRESS takes one channel; HOLD takes several"));
        if (mask == 0)
            return err(id, PSTR("ARGS"), hold
                       ? PSTR("channels are numbers with commas between, as in 4,5")
                       : PSTR("the channel is a number, as in PRESS 3 300"));
        int32_t ms = number(arg[2]);
        if (ms < 0)
            return err(id, PSTR("ARGS"), PSTR("the time is a whole number of ms"));
        if (ms < 1 || ms > PRESS_MAX_MS)
            return err(id, PSTR("RANGE"), PSTR("a press lasts 1 to 10000 ms"));
        close_for((uint8_t)mask, (uint16_t)ms);
        head(1, id);
        put_P(hold ? PSTR("HOLD ") : PSTR("PRESS "));
        channel_list((uint8_t)mask);
        put(" ");
        put_u((uint32_t)ms);
    } else if (same_word(verb, PSTR("RELEASE"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("RELEASE takes nothing after it"));
        cli();
        open_all();
        sei();
        head(1, id);
        put_P(PSTR("RELEASE"));
    } else if (same_word(verb, PSTR("STICKS"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("STICKS takes nothing after it"));
        uint16_t sums[SEATS];
        for (uint8_t s = 0; s < SEATS; s++)
            sums[s] = adc_sum(s);
        head(1, id);
        put_P(PSTR("STICKS"));
        for (uint8_t s = 0; s < SEATS; s++) {
            put(" ");
            put_u(points_of(sums[s]));
        }
        put_P(PSTR(" RAW"));
        for (uint8_t s = 0; s < SEATS; s++) {
            put(" ");
            put_u((sums[s] + SAMPLES / 2) / SAMPLES);
        }
    } else if (same_word(verb, PSTR("VERSION"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("VERSION takes nothing after it"));
        head(1, id);
        put_P(PSTR("VERSION " VERSION " " MCU_NAME " CHANNELS "));
        put_u(CHANNELS);
        put_P(PSTR(" SEATS "));
        put_u(SEATS);
        put_P(PSTR(" RREF "));
        put_u(R_REF_OHMS);
        put_P(RELAY_ACTIVE_LOW ? PSTR(" ACTIVE LOW WATCHDOG ") : PSTR(" ACTIVE HIGH WATCHDOG "));
        put_u(wd_ms);
        put_P(PSTR(" LAST "));
        put_u(last_id);
    } else if (same_word(verb, PSTR("WATCHDOG"))) {
        if (argc > 2)
            return err(id, PSTR("ARGS"), PSTR("WATCHDOG takes one time in ms, or nothing"));
        if (argc == 2) {
            int32_t ms = number(arg[1]);
            if (ms < 0)
                return err(id, PSTR("ARGS"), PSTR("the time is a whole number of ms"));
            if (ms < WD_MIN_MS || ms > WD_MAX_MS)
                return err(id, PSTR("RANGE"), PSTR("the watchdog takes 100 to 60000 ms"));
            cli();
            wd_ms = (uint16_t)ms;
            sei();
        }
        head(1, id);
        put_P(PSTR("WATCHDOG "));
        put_u(wd_ms);
    } else {
        err(id, PSTR("UNKNOWN"),
            PSTR("unknown command; the commands are PING PRESS HOLD RELEASE STICKS VERSION WATCHDOG"));
    }
}

static void send_answer(uint8_t repeat)
{
    if (repeat)
        put_P(PSTR(" REPEAT"));
    cli();
    uint8_t fired = wd_fired;
    wd_fired = 0;
    sei();
    if (fired)
        put_P(PSTR(" WDFIRED"));
    for (uint8_t i = 0; i < out_len; i++)
        tx(out[i]);
    tx('\r');
    tx('\n');
}

static void handle_line(void)
{
    char *arg[6];
    uint8_t argc = 0;
    char text[LINE_MAX + 1];

    cli();
    quiet_ms = 0;
    sei();
    if (line_long) {
        err(0, PSTR("LONG"), PSTR("the line is too long; at most 63 characters"));
        return send_answer(0);
    }
    strcpy(text, line);
    for (char *p = line; *p && argc < 6;) {
        while (*p == ' ' || *p == '\t')
            *p++ = 0;
        if (!*p)
            break;
        arg[argc++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    if (!argc)
        return;         /* an empty line is no command */
    uint16_t id = 0;
    if (is_digits(arg[0])) {
        int32_t v = number(arg[0]);
        if (v < 1 || v > 65535) {
            err(0, PSTR("ID"), PSTR("an id is a number from 1 to 65535"));
            return send_answer(0);
        }
        id = (uint16_t)v;
        if (argc == 1) {
            err(id, PSTR("ARGS"), PSTR("a command follows the id"));
            return send_answer(0);
        }
        if (id == last_id) {
            if (strcmp(text, last_cmd) == 0) {
                strcpy(out, last_answer);
                out_len = (uint8_t)strlen(out);
                return send_answer(1);
            }
            err(id, PSTR("ID"), PSTR("this id was used for another command; take a new one"));
            return send_answer(0);
        }
        run(id, arg + 1, (uint8_t)(argc - 1));
        last_id = id;
        strcpy(last_cmd, text);
        strcpy(last_answer, out);
    } else {
        run(0, arg, argc);
    }
    send_answer(0);
}

/* ---------------------------------------------------------------- start */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    MCUSR = 0;
    wdt_disable();
}

int main(void)
{
    for (uint8_t i = 0; i < CHANNELS; i++) {
        relay_write(i, 0);      /* the open level first, then drive the pin */
        *relay_ddr[i] |= (uint8_t)(1 << relay_bit[i]);
    }
    /* UART: 115200 8N1, double speed (the Arduino bootloader's setting) */
    uint16_t ubrr = (uint16_t)((F_CPU + BAUD * 4) / (BAUD * 8) - 1);
    UBRR0H = (uint8_t)(ubrr >> 8);
    UBRR0L = (uint8_t)ubrr;
    UCSR0A = (1 << U2X0);
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    /* Timer1: CTC at 1 kHz (prescaler 64) */
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11) | (1 << CS10);
    OCR1A = (uint16_t)(F_CPU / 64 / 1000 - 1);
    TIMSK1 = (1 << OCIE1A);
    /* ADC: enabled, prescaler 128 */
    ADCSRA = (1 << ADEN) | (1 << ADPS2) | (1 << ADPS1) | (1 << ADPS0);
    wdt_enable(WDTO_500MS);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();

    for (;;) {
        wdt_reset();
        cli();
        if (rx_head == rx_tail) {
            sleep_enable();
            sei();
            sleep_cpu();        /* the 1 ms tick or a byte wakes it */
            sleep_disable();
            continue;
        }
        uint8_t c = rx_buf[rx_tail];
        rx_tail = (uint8_t)((rx_tail + 1) & 63);
        sei();
        if (c == '\r' || c == '\n') {
            line[line_len] = 0;
            if (line_len || line_long)
                handle_line();
            line_len = 0;
            line_long = 0;
        } else if (line_len < LINE_MAX) {
            line[line_len++] = (char)c;
        } else {
            line_long = 1;
        }
    }
}
