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

#include "bridge_protocol.h"
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

#ifndef HW_WATCHDOG
#define HW_WATCHDOG 1
#endif
#if (RX_RING & (RX_RING - 1)) || RX_RING > 128
#error "RX_RING is a power of two up to 128"
#endif
/* a ring slot: the byte, and this flag when bytes were lost just before it */
#define RX_LOST 0x100
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
/* the power output: 1 = the outlet's trigger energised, the table off */
static volatile uint8_t power_off;
static volatile uint8_t pw_fired;       /* the host went silent and the power came back */

/* the last numbered press or hold and its latched outcome (OUTCOME_*, 0: none yet) */
static volatile uint16_t press_id;
static volatile uint8_t press_mask, press_state;

static volatile uint16_t rx_buf[RX_RING];
static volatile uint8_t rx_head, rx_tail, rx_lost;

/* why the chip started: MCUSR as it was at reset, kept before it is cleared */
static uint8_t reset_flags __attribute__((section(".noinit")));

static char line[LINE_MAX + 1];
static uint8_t line_len, line_long;
static uint8_t line_bad;        /* a NUL, a control or non-ASCII byte in the line */
static uint8_t line_lost;       /* bytes of the line were lost (the ring was full) */
static uint8_t framed_line;     /* the line carried a checksum: so does its answer */
static char out[ANSWER_MAX];
static uint8_t out_len;
static uint16_t last_id;
static char last_cmd[LINE_MAX + 1];
static char last_answer[ANSWER_MAX];

/* ---------------------------------------------------------------- senses, RECORD
 * Input 0 is the table's power, inputs 1..SENSES the optocouplers across the switches of
 * relays 1..SENSES (a hand or a relay closing one pulls its input low). The 1 ms tick
 * debounces them; while recording, every change is kept with the time it was first
 * seen, in ms since RECORD START. */
static volatile uint8_t *const press_sense_pin[SENSES] = PRESS_SENSE_PINS;
static volatile uint8_t *const press_sense_port[SENSES] = PRESS_SENSE_PORTS;
static const uint8_t press_sense_bit[SENSES] = PRESS_SENSE_BITS;
static volatile uint8_t sense_stable;          /* bit i: input i on (power) or pressed */
static uint8_t sense_count[SENSES + 1];
static volatile uint8_t rec_on, rec_overflow, rec_len;
static volatile uint32_t rec_ms;
static uint32_t rec_t[RECORD_MAX];
static uint8_t rec_what[RECORD_MAX];           /* input << 1 | its new level */

/* ---------------------------------------------------------------- relays */
static void relay_write(uint8_t i, uint8_t closed)
{
    uint8_t high = RELAY_ACTIVE_LOW ? !closed : closed;
    if (high)
        *relay_port[i] |= (uint8_t)(1 << relay_bit[i]);
    else
        *relay_port[i] &= (uint8_t)~(1 << relay_bit[i]);
}

static void power_write(uint8_t off)
{
    power_off = off;
    if (off)
        POWER_PORT |= (uint8_t)(1 << POWER_BIT);
    else
        POWER_PORT &= (uint8_t)~(1 << POWER_BIT);
}

/* the table has power: its optocoupler pulls the sense input low */
static uint8_t sensed_on(void)
{
    return !(SENSE_PIN & (1 << SENSE_BIT));
}

static uint8_t sense_levels(void)
{
    uint8_t v = sensed_on() ? 1 : 0;
    for (uint8_t i = 0; i < SENSES; i++)
        if (!(*press_sense_pin[i] & (1 << press_sense_bit[i])))
            v |= (uint8_t)(1 << (i + 1));
    return v;
}

/* one tick of the sense inputs (from the timer interrupt) */
static void sense_tick(void)
{
    if (rec_on)
        rec_ms++;
    uint8_t now = sense_levels();
    for (uint8_t i = 0; i <= SENSES; i++) {
        uint8_t bit = (uint8_t)(1 << i);
        if (!((now ^ sense_stable) & bit)) {
            sense_count[i] = 0;
            continue;
        }
        if (++sense_count[i] < SENSE_DEBOUNCE_MS)
            continue;
        sense_count[i] = 0;
        sense_stable ^= bit;
        if (!rec_on)
            continue;
        if (rec_len >= RECORD_MAX) {
            rec_overflow = 1;
            continue;
        }
        rec_t[rec_len] = rec_ms >= SENSE_DEBOUNCE_MS - 1 ? rec_ms - (SENSE_DEBOUNCE_MS - 1) : 0;
        rec_what[rec_len] = (uint8_t)((i << 1) | ((sense_stable & bit) ? 1 : 0));
        rec_len++;
    }
}

static void open_all(void)
{
    for (uint8_t i = 0; i < CHANNELS; i++) {
        remaining[i] = 0;
        relay_write(i, 0);
    }
}

static void script_tick(void);   /* the on-board script's step: below */

ISR(TIMER1_COMPA_vect)
{
    uint8_t any = 0;
    sense_tick();
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
    /* the table is never left off by a host that went away */
    if (power_off && quiet_ms >= POWER_HOLD_MS) {
        power_write(0);
        pw_fired = 1;
    }
    if (any && quiet_ms >= wd_ms) {
        open_all();
        wd_fired = 1;
        if (press_state == OUTCOME_RUNNING)
            press_state = OUTCOME_CUT;
    }
    if (press_state == OUTCOME_RUNNING) {
        uint8_t still = 0;
        for (uint8_t i = 0; i < CHANNELS; i++)
            if ((press_mask & (1 << i)) && remaining[i])
                still = 1;
        if (!still)
            press_state = OUTCOME_DONE;
    }
    script_tick();
}

/* ---------------------------------------------------------------- serial */
/* A byte that finds the ring full is lost, and the next byte that fits carries
 * RX_LOST: the line it ends up in is refused whole, never run in part. */
ISR(RX_VECT)
{
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_RING - 1));
    if (next == rx_tail) {
        rx_lost = 1;
        return;
    }
    rx_buf[rx_head] = (uint16_t)(c | (rx_lost ? RX_LOST : 0));
    rx_lost = 0;
    rx_head = next;
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

/* The n-th word (from 1) of a space-separated list in flash: a state's name */
static void put_word_P(PGM_P words, uint8_t n)
{
    char c;
    while (--n)
        while ((c = (char)pgm_read_byte(words++)) != ' ' && c)
            ;
    while ((c = (char)pgm_read_byte(words++)) != ' ' && c && out_len < sizeof out - 1)
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

/* the words a line can hold (one character and a space each) */
#define ARGS_MAX ((LINE_MAX + 1) / 2)
static uint8_t reset_due;      /* RESET: let the hardware watchdog restart the chip */

/* ---------------------------------------------------------------- the script
 * A whole mode change loaded by SCRIPT lines and run by RUN on the chip's own clock
 * (docs/bridge.md, "The script"). The Timer1 tick runs it; the main loop only loads,
 * starts and stops it, never while it runs. */
#define OP_WAIT 1
#define OP_CLOSE 2
#define OP_OFF 3
#define OP_ON 4
#define OP_REPEAT 5
#define OP_END 6
struct op {
    uint8_t kind;
    uint8_t mask;       /* OP_CLOSE: the channels; OP_END: the index of its OP_REPEAT */
    uint16_t ms;        /* OP_WAIT, OP_CLOSE: the time; OP_REPEAT: the times the group runs */
};
static struct op script[SCRIPT_STEPS];
static uint8_t script_len;
static uint8_t script_group = 0xFF;     /* the index of an R not yet closed by E */
static volatile uint8_t script_state;   /* SCRIPT_* (0: never run) */
static volatile uint8_t script_pc, script_left, script_pass;
static volatile uint16_t script_wait, script_id;

/* the script stops short: every relay open, the table let on */
static void script_end(uint8_t state)
{
    open_all();
    power_write(0);
    script_state = state;
}

/* called by the 1 ms tick: the next step when the present one's time is over */
static void script_tick(void)
{
    if (script_state != SCRIPT_RUNNING)
        return;
    if (quiet_ms >= wd_ms) {        /* the host is gone: stop, as the watchdog does */
        script_end(SCRIPT_CUT);
        wd_fired = 1;
        return;
    }
    if (script_wait && --script_wait)
        return;
    for (uint8_t guard = 0; guard < 2 * SCRIPT_STEPS; guard++) {
        if (script_pc >= script_len) {
            script_state = SCRIPT_DONE;
            return;
        }
        struct op *o = &script[script_pc++];
        switch (o->kind) {
        case OP_WAIT:
            if (o->ms) {
                script_wait = o->ms;
                return;
            }
            break;
        case OP_CLOSE:
            for (uint8_t i = 0; i < CHANNELS; i++) {
                if (o->mask & (1 << i)) {
                    remaining[i] = (uint16_t)(o->ms + 1);
                    relay_write(i, 1);
                }
            }
            script_wait = (uint16_t)(o->ms + 1);
            return;
        case OP_OFF:
            power_write(1);
            break;
        case OP_ON:
            power_write(0);
            break;
        case OP_REPEAT:
            script_left = (uint8_t)(o->ms - 1);
            script_pass = 1;
            break;
        case OP_END:
            if (script_left) {
                script_left--;
                script_pass++;
                script_pc = (uint8_t)(o->mask + 1);
            } else {
                script_pass = 1;
            }
            break;
        }
    }
}

/* " SCRIPT <id> <state> <step> <pass>"; only for ``id`` when it is given */
static void put_script(uint16_t only)
{
    cli();
    uint8_t state = script_state, pc = script_pc, pass = script_pass;
    uint16_t sid = script_id;
    sei();
    if (!state || (only && only != sid))
        return;
    put_P(PSTR(" SCRIPT "));
    if (sid)
        put_u(sid);
    else
        put("-");
    put(" ");
    put_word_P(PSTR(SCRIPT_OUTCOMES_S), state);
    put(" ");
    put_u(pc);
    put(" ");
    put_u(pass);
}

/* One step of a SCRIPT line into script[at]; 0 when it is good, else the refusal made */
static uint8_t script_step(uint16_t id, char *tok, uint8_t at, uint8_t *group)
{
    char c = *tok;
    if (c >= 'a' && c <= 'z')
        c = (char)(c - 32);
    struct op *o = &script[at];
    o->mask = 0;
    o->ms = 0;
    if (same_word(tok, PSTR("ON")) || same_word(tok, PSTR("OFF"))) {
        o->kind = same_word(tok, PSTR("ON")) ? OP_ON : OP_OFF;
        return 0;
    }
    if (same_word(tok, PSTR("E"))) {
        if (*group == 0xFF)
            return err(id, PSTR("ARGS"), PSTR("E ends a group that R began")), 1;
        o->kind = OP_END;
        o->mask = *group;
        *group = 0xFF;
        return 0;
    }
    char *colon = strchr(tok, ':');
    if (colon) {
        *colon = 0;
        int16_t mask = parse_channels(tok);
        int32_t ms = number(colon + 1);
        if (mask < 0)
            return err(id, PSTR("CHANNEL"), PSTR("no such relay; the channels are 1 to 8")), 1;
        if (mask == 0 || ms < 0)
            return err(id, PSTR("ARGS"), PSTR("a press is channels:ms, as in 2:150 or 4,5:3000")), 1;
        if (ms < 1 || ms > PRESS_MAX_MS)
            return err(id, PSTR("RANGE"), PSTR("a press lasts 1 to " PRESS_MAX_MS_S " ms")), 1;
        o->kind = OP_CLOSE;
        o->mask = (uint8_t)mask;
        o->ms = (uint16_t)ms;
        return 0;
    }
    if (c == 'W' || c == 'R') {
        int32_t v = number(tok + 1);
        if (v < 0)
            return err(id, PSTR("ARGS"), PSTR("W and R take a number, as in W250 or R3")), 1;
        if (c == 'W') {
            if (v > SCRIPT_WAIT_MAX_MS)
                return err(id, PSTR("RANGE"), PSTR("a wait lasts 0 to " SCRIPT_WAIT_MAX_MS_S " ms")), 1;
            o->kind = OP_WAIT;
        } else {
            if (v < 1 || v > SCRIPT_REPEAT_MAX)
                return err(id, PSTR("RANGE"), PSTR("a group repeats 1 to " SCRIPT_REPEAT_MAX_S " times")), 1;
            if (*group != 0xFF)
                return err(id, PSTR("ARGS"), PSTR("groups do not nest; end this one with E first")), 1;
            o->kind = OP_REPEAT;
            *group = at;
        }
        o->ms = (uint16_t)v;
        return 0;
    }
    return err(id, PSTR("ARGS"),
               PSTR("a step is ON, OFF, W<ms>, <ch>[,<ch>]:<ms>, R<times> or E")), 1;
}

/* SCRIPT, RUN, ABORT, and the commands a running script refuses; 1 when it answered */
static uint8_t script_command(uint16_t id, char **arg, uint8_t argc)
{
    const char *verb = arg[0];
    uint8_t busy = script_state == SCRIPT_RUNNING;
    if (same_word(verb, PSTR("RELEASE"))) {
        if (busy) {             /* RELEASE always works: it stops the script too */
            cli();
            script_end(SCRIPT_ABORTED);
            sei();
        }
        return 0;
    }
    if (same_word(verb, PSTR("ABORT"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("ABORT takes nothing after it")), 1;
        if (busy) {
            cli();
            script_end(SCRIPT_ABORTED);
            sei();
        }
        head(1, id);
        put_P(PSTR("ABORT"));
        return 1;
    }
    uint8_t script_verb = same_word(verb, PSTR("SCRIPT")) || same_word(verb, PSTR("RUN"));
    if (busy && (script_verb || same_word(verb, PSTR("PRESS")) || same_word(verb, PSTR("HOLD"))
                 || (same_word(verb, PSTR("POWER")) && argc > 1)))
        return err(id, PSTR("BUSY"), PSTR("a script is running; ABORT it first")), 1;
    if (same_word(verb, PSTR("SCRIPT"))) {
        uint8_t fresh = argc >= 2 && same_word(arg[1], PSTR("NEW"));
        if (argc < 2 || (!fresh && !same_word(arg[1], PSTR("ADD"))) || (!fresh && argc < 3))
            return err(id, PSTR("ARGS"), PSTR("SCRIPT NEW or SCRIPT ADD, then its steps")), 1;
        uint8_t at = fresh ? 0 : script_len;
        uint8_t group = fresh ? 0xFF : script_group;
        if (at + argc - 2 > SCRIPT_STEPS)
            return err(id, PSTR("RANGE"), PSTR("a script holds at most " SCRIPT_STEPS_S " steps")), 1;
        for (uint8_t i = 2; i < argc; i++, at++)
            if (script_step(id, arg[i], at, &group))
                return 1;       /* refused whole: the script loaded before stays */
        script_len = at;
        script_group = group;
        if (fresh)
            script_state = 0;
        head(1, id);
        put_P(PSTR("SCRIPT "));
        put_u(script_len);
        return 1;
    }
    if (same_word(verb, PSTR("RUN"))) {
        int32_t n = argc == 2 ? number(arg[1]) : -1;
        if (n < 0)
            return err(id, PSTR("ARGS"), PSTR("RUN takes the script's count of steps")), 1;
        if (!script_len)
            return err(id, PSTR("ARGS"), PSTR("no script is loaded; SCRIPT NEW first")), 1;
        if (n != script_len)
            return err(id, PSTR("ARGS"), PSTR("the count differs from the steps loaded")), 1;
        if (script_group != 0xFF)
            return err(id, PSTR("ARGS"), PSTR("a group R is not ended by E")), 1;
        cli();
        script_pc = 0;
        script_wait = 0;
        script_left = 0;
        script_pass = 1;
        script_id = id;
        script_state = SCRIPT_RUNNING;
        sei();
        head(1, id);
        put_P(PSTR("RUN "));
        put_u(script_len);
        return 1;
    }
    return 0;
}

/* " PRESS <id> <outcome>" of the last numbered press; only for ``id`` when it is given */
static void put_outcome(uint16_t only)
{
    cli();
    uint16_t pid = press_id;
    uint8_t state = press_state;
    sei();
    if (!state || (only && only != pid))
        return;
    put_P(PSTR(" PRESS "));
    put_u(pid);
    put(" ");
    put_word_P(PSTR(OUTCOMES_S), state);
}

/* RECORD [START | STOP | READ <first>]: the recording of the sense inputs' edges */
static void record_cmd(uint16_t id, char **arg, uint8_t argc)
{
    int32_t from = -1;
    if (argc == 2 && same_word(arg[1], PSTR("START"))) {
        cli();
        rec_len = 0;
        rec_overflow = 0;
        rec_ms = 0;
        rec_on = 1;
        sei();
    } else if (argc == 2 && same_word(arg[1], PSTR("STOP"))) {
        rec_on = 0;
    } else if (argc == 3 && same_word(arg[1], PSTR("READ"))) {
        from = number(arg[2]);
        if (from < 0)
            return err(id, PSTR("ARGS"),
                       PSTR("RECORD READ takes the first edge's index, as in RECORD READ 0"));
        if (from > RECORD_MAX)
            return err(id, PSTR("RANGE"),
                       PSTR("the recording keeps at most " RECORD_MAX_S " edges"));
    } else if (argc != 1) {
        return err(id, PSTR("ARGS"), PSTR("RECORD takes START, STOP, READ <first> or nothing"));
    }
    cli();
    uint8_t on = rec_on, len = rec_len, over = rec_overflow;
    uint32_t ms = rec_ms;
    sei();
    head(1, id);
    put_P(on ? PSTR("RECORD ON EDGES ") : PSTR("RECORD OFF EDGES "));
    put_u(len);
    put_P(PSTR(" OVERFLOW "));
    put_u(over);
    if (from < 0) {
        put_P(PSTR(" CLOCK "));
        put_u(ms);
        return;
    }
    put_P(PSTR(" FROM "));
    put_u((uint32_t)from);
    for (uint8_t i = (uint8_t)from; i < len && i < from + RECORD_PER_READ; i++) {
        uint8_t input = (uint8_t)(rec_what[i] >> 1);
        char word[4] = {' ', input ? (char)('0' + input) : 'P', (rec_what[i] & 1) ? '+' : '-', 0};
        put(word);
        put_u(rec_t[i]);
    }
}

static void run(uint16_t id, char **arg, uint8_t argc)
{
    const char *verb = arg[0];
    if (script_command(id, arg, argc))
        return;
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
        if (power_off)
            put_P(PSTR(" POWER OFF"));
        put_outcome(0);
        put_script(0);
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
            return err(id, PSTR("RANGE"), PSTR("a press lasts 1 to " PRESS_MAX_MS_S " ms"));
        close_for((uint8_t)mask, (uint16_t)ms);
        if (id) {
            cli();
            press_id = id;
            press_mask = (uint8_t)mask;
            press_state = OUTCOME_RUNNING;
            sei();
        }
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
        if (press_state == OUTCOME_RUNNING)
            press_state = OUTCOME_RELEASED;
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
        put_P(PSTR("VERSION " FIRMWARE_VERSION " " MCU_NAME " PROTOCOL " PROTOCOL_S
                   " CHANNELS "));
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
                return err(id, PSTR("RANGE"), PSTR("the watchdog takes " WD_MIN_MS_S " to " WD_MAX_MS_S " ms"));
            cli();
            wd_ms = (uint16_t)ms;
            sei();
        }
        head(1, id);
        put_P(PSTR("WATCHDOG "));
        put_u(wd_ms);
    } else if (same_word(verb, PSTR("POWER"))) {
        if (argc > 2 || (argc == 2 && !same_word(arg[1], PSTR("ON"))
                         && !same_word(arg[1], PSTR("OFF"))))
            return err(id, PSTR("ARGS"), PSTR("POWER takes ON or OFF, or nothing"));
        if (argc == 2) {
            cli();
            power_write(same_word(arg[1], PSTR("OFF")));
            sei();
        }
        head(1, id);
        put_P(power_off ? PSTR("POWER OFF SENSE ") : PSTR("POWER ON SENSE "));
        put_P(sensed_on() ? PSTR("ON") : PSTR("OFF"));
    } else if (same_word(verb, PSTR("RESET"))) {
        if (argc != 1)
            return err(id, PSTR("ARGS"), PSTR("RESET takes nothing after it"));
#if HW_WATCHDOG
        head(1, id);
        put_P(PSTR("RESET"));
        reset_due = 1;
#else
        err(id, PSTR("UNKNOWN"), PSTR("built without the hardware watchdog; RESET needs it"));
#endif
    } else if (same_word(verb, PSTR("RECORD"))) {
        record_cmd(id, arg, argc);
    } else {
        err(id, PSTR("UNKNOWN"), PSTR("unknown command; the commands are " VERBS_S));
    }
}

static void send_answer(uint8_t repeat, uint16_t id)
{
    if (repeat) {
        put_P(PSTR(" REPEAT"));
        put_outcome(id);        /* a resent press says how it ended, cut or not */
        put_script(id);         /* and a resent RUN how its script ended */
    }
    cli();
    uint8_t fired = wd_fired;
    wd_fired = 0;
    sei();
    if (fired)
        put_P(PSTR(" WDFIRED"));
    cli();
    fired = pw_fired;
    pw_fired = 0;
    sei();
    if (fired)
        put_P(PSTR(" PWRFIRED"));
    if (framed_line) {
        uint8_t x = 0;
        for (uint8_t i = 0; i < out_len; i++)
            x ^= (uint8_t)out[i];
        static const char hex[] PROGMEM = "0123456789ABCDEF";
        char sum[4] = {'*', (char)pgm_read_byte(&hex[x >> 4]),
                       (char)pgm_read_byte(&hex[x & 15]), 0};
        put(sum);
    }
    for (uint8_t i = 0; i < out_len; i++)
        tx(out[i]);
    tx('\r');
    tx('\n');
}

static int8_t hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return (int8_t)(c - '0');
    if (c >= 'A' && c <= 'F')
        return (int8_t)(c - 'A' + 10);
    if (c >= 'a' && c <= 'f')
        return (int8_t)(c - 'a' + 10);
    return -1;
}

/* Takes the "*HH" off the line; 0 when there is none or it agrees, 1 when it does not */
static uint8_t take_checksum(void)
{
    char *star = strrchr(line, '*');
    framed_line = 0;
    if (!star)
        return 0;
    framed_line = 1;
    int8_t hi = hex_digit(star[1]), lo = hi < 0 ? -1 : hex_digit(star[2]);
    uint8_t x = 0;
    for (char *p = line; p < star; p++)
        x ^= (uint8_t)*p;
    *star = 0;
    return lo < 0 || star[3] != 0 || x != (uint8_t)((hi << 4) | lo);
}

static void handle_line(void)
{
    char *arg[ARGS_MAX];
    uint8_t argc = 0;
    char text[LINE_MAX + 1];

    cli();
    quiet_ms = 0;
    sei();
    framed_line = 0;
    /* a damaged line is refused whole: nothing of it is trusted, not even its id */
    if (line_lost) {
        err(0, PSTR("OVERFLOW"),
            PSTR("bytes were lost; wait for each answer. Nothing of the line was done"));
        return send_answer(0, 0);
    }
    if (line_bad) {
        err(0, PSTR("BYTE"),
            PSTR("a NUL, control or non-ASCII byte; nothing of the line was done"));
        return send_answer(0, 0);
    }
    if (line_long) {
        err(0, PSTR("LONG"), PSTR("the line is too long; at most " LINE_MAX_S " characters"));
        return send_answer(0, 0);
    }
    if (take_checksum()) {
        err(0, PSTR("CHECKSUM"), PSTR("the checksum does not match; nothing was done"));
        return send_answer(0, 0);
    }
    strcpy(text, line);
    for (char *p = line; *p && argc < ARGS_MAX;) {
        while (*p == ' ' || *p == '\t')
            *p++ = 0;
        if (!*p)
            break;
        arg[argc++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    if (!argc) {
        if (framed_line) {
            err(0, PSTR("ARGS"), PSTR("a checksum with no command before it"));
            send_answer(0, 0);
        }
        return;         /* an empty line is no command */
    }
    uint16_t id = 0;
    if (is_digits(arg[0])) {
        int32_t v = number(arg[0]);
        if (v < 1 || v > 65535) {
            err(0, PSTR("ID"), PSTR("an id is a number from 1 to 65535"));
            return send_answer(0, 0);
        }
        id = (uint16_t)v;
        if (!framed_line) {
            err(0, PSTR("CHECKSUM"),
                PSTR("a numbered line ends with its checksum, as in 7 PING*1D"));
            return send_answer(0, 0);
        }
        if (argc == 1) {
            err(id, PSTR("ARGS"), PSTR("a command follows the id"));
            return send_answer(0, 0);
        }
        if (id == last_id) {
            if (strcmp(text, last_cmd) == 0) {
                strcpy(out, last_answer);
                out_len = (uint8_t)strlen(out);
                return send_answer(1, id);
            }
            err(id, PSTR("ID"), PSTR("this id was used for another command; take a new one"));
            return send_answer(0, 0);
        }
        run(id, arg + 1, (uint8_t)(argc - 1));
        last_id = id;
        strcpy(last_cmd, text);
        strcpy(last_answer, out);
    } else {
        run(0, arg, argc);
    }
    send_answer(0, 0);
}

/* ---------------------------------------------------------------- start */
void early_wdt_off(void) __attribute__((naked, used, section(".init3")));
void early_wdt_off(void)
{
    /* before anything else: a watchdog reset leaves the watchdog running at its
     * shortest time, which would reset the chip again while it starts */
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

static void banner(void)
{
    out_len = 0;
    put_P(PSTR("READY " FIRMWARE_VERSION " PROTOCOL " PROTOCOL_S " RESET "));
    if (reset_flags & (1 << WDRF))
        put_P(PSTR("WATCHDOG"));
    else if (reset_flags & (1 << BORF))
        put_P(PSTR("BROWNOUT"));
    else if (reset_flags & (1 << EXTRF))
        put_P(PSTR("EXTERNAL"));
    else if (reset_flags & (1 << PORF))
        put_P(PSTR("POWERON"));
    else
        put_P(PSTR("UNKNOWN"));     /* a bootloader cleared the flags before us */
    framed_line = 0;
    for (uint8_t i = 0; i < out_len; i++)
        tx(out[i]);
    tx('\r');
    tx('\n');
}

int main(void)
{
    for (uint8_t i = 0; i < CHANNELS; i++) {
        relay_write(i, 0);      /* the open level first, then drive the pin */
        *relay_ddr[i] |= (uint8_t)(1 << relay_bit[i]);
    }
    power_write(0);             /* the table on: the outlet's trigger not energised */
    POWER_DDR |= (uint8_t)(1 << POWER_BIT);
    SENSE_PORT |= (uint8_t)(1 << SENSE_BIT);    /* the sense input's pull-up */
    for (uint8_t i = 0; i < SENSES; i++)        /* and the switch senses' */
        *press_sense_port[i] |= (uint8_t)(1 << press_sense_bit[i]);
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
#if HW_WATCHDOG
    wdt_enable(WDTO_500MS);
#endif
    set_sleep_mode(SLEEP_MODE_IDLE);
    sense_stable = sense_levels();      /* the levels at start are no edges */
    sei();
    banner();

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
        uint16_t slot = rx_buf[rx_tail];
        rx_tail = (uint8_t)((rx_tail + 1) & (RX_RING - 1));
        sei();
        uint8_t c = (uint8_t)slot;
        if (slot & RX_LOST)
            line_lost = 1;
        if (c == '\r' || c == '\n') {
            line[line_len] = 0;
            if (line_len || line_long || line_bad || line_lost)
                handle_line();
            line_len = 0;
            line_long = line_bad = line_lost = 0;
            if (reset_due) {
                cli();
                open_all();
                power_write(0);
                sei();
                for (;;)
                    ;           /* the hardware watchdog restarts the chip */
            }
        } else if (c == 0 || c >= 0x80 || (c < 0x20 && c != '\t')) {
            line_bad = 1;
        } else if (line_len < LINE_MAX) {
            line[line_len++] = (char)c;
        } else {
            line_long = 1;
        }
    }
}
