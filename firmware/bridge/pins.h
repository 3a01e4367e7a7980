/* Where the relays and the stick readers are wired, per microcontroller.
 *
 * Channels 1..8 are the Arduino digital pins D2..D9 on every supported board; the
 * seats' stick readers are the analog inputs A0..A3 (seat 0 on A0). */
#ifndef BRIDGE_PINS_H
#define BRIDGE_PINS_H

#include <avr/io.h>

#define CHANNELS 8
#define SEATS 4

#if defined(__AVR_ATmega328P__) || defined(__AVR_ATmega328__)
#define MCU_NAME "atmega328p"
/* Nano / Uno: D2..D7 = PD2..PD7, D8 = PB0, D9 = PB1 */
#define RELAY_PORTS {&PORTD, &PORTD, &PORTD, &PORTD, &PORTD, &PORTD, &PORTB, &PORTB}
#define RELAY_DDRS {&DDRD, &DDRD, &DDRD, &DDRD, &DDRD, &DDRD, &DDRB, &DDRB}
#define RELAY_BITS {2, 3, 4, 5, 6, 7, 0, 1}
/* D10 = PB2: the power output; D11 = PB3: the power sense input */
#define POWER_PORT PORTB
#define POWER_DDR DDRB
#define POWER_BIT 2
#define SENSE_PIN PINB
#define SENSE_PORT PORTB
#define SENSE_BIT 3
/* the switch sense inputs 1..4 (across the switches of relays 1..4): D12 = PB4,
 * D13 = PB5 (the on-board LED: see docs/hardware.md), A4 = PC4, A5 = PC5 */
#define PRESS_SENSE_PINS {&PINB, &PINB, &PINC, &PINC}
#define PRESS_SENSE_PORTS {&PORTB, &PORTB, &PORTC, &PORTC}
#define PRESS_SENSE_BITS {4, 5, 4, 5}
#elif defined(__AVR_ATmega2560__)
#define MCU_NAME "atmega2560"
/* Mega 2560: D2 = PE4, D3 = PE5, D4 = PG5, D5 = PE3, D6..D9 = PH3..PH6 */
#define RELAY_PORTS {&PORTE, &PORTE, &PORTG, &PORTE, &PORTH, &PORTH, &PORTH, &PORTH}
#define RELAY_DDRS {&DDRE, &DDRE, &DDRG, &DDRE, &DDRH, &DDRH, &DDRH, &DDRH}
#define RELAY_BITS {4, 5, 5, 3, 3, 4, 5, 6}
/* D10 = PB4: the power output; D11 = PB5: the power sense input */
#define POWER_PORT PORTB
#define POWER_DDR DDRB
#define POWER_BIT 4
#define SENSE_PIN PINB
#define SENSE_PORT PORTB
#define SENSE_BIT 5
/* the switch sense inputs 1..4: D12 = PB6, D13 = PB7 (the LED), A4 = PF4, A5 = PF5 */
#define PRESS_SENSE_PINS {&PINB, &PINB, &PINF, &PINF}
#define PRESS_SENSE_PORTS {&PORTB, &PORTB, &PORTF, &PORTF}
#define PRESS_SENSE_BITS {6, 7, 4, 5}
#else
#error "the bridge firmware supports atmega328p (Nano, Uno) and atmega2560 (Mega 2560)"
#endif

#endif
