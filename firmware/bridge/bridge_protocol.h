/* Written by tablectl/bridge_protocol.py: do not edit; change the Python file.
 */
#ifndef BRIDGE_PROTOCOL_H
#define BRIDGE_PROTOCOL_H
#define FIRMWARE_VERSION "3.0"
#define PROTOCOL 3
#define PROTOCOL_S "3"
#define PRESS_MAX_MS 10000
#define PRESS_MAX_MS_S "10000"
#define POWER_HOLD_MS 30000
#define POWER_HOLD_MS_S "30000"
#define WD_DEFAULT_MS 1500
#define WD_DEFAULT_MS_S "1500"
#define WD_MIN_MS 100
#define WD_MIN_MS_S "100"
#define WD_MAX_MS 60000
#define WD_MAX_MS_S "60000"
#define LINE_MAX 63
#define LINE_MAX_S "63"
#define RX_RING 64
#define RX_RING_S "64"
#define ANSWER_MAX 160
#define ANSWER_MAX_S "160"
#define SAMPLES 16
#define SAMPLES_S "16"
#define SCRIPT_STEPS 32
#define SCRIPT_STEPS_S "32"
#define SCRIPT_WAIT_MAX_MS 60000
#define SCRIPT_WAIT_MAX_MS_S "60000"
#define SCRIPT_REPEAT_MAX 99
#define SCRIPT_REPEAT_MAX_S "99"
#define SENSES 4
#define SENSES_S "4"
#define SENSE_DEBOUNCE_MS 10
#define SENSE_DEBOUNCE_MS_S "10"
#define RECORD_MAX 64
#define RECORD_MAX_S "64"
#define RECORD_PER_READ 5
#define RECORD_PER_READ_S "5"
#define VERBS_S "PING PRESS HOLD RELEASE STICKS VERSION WATCHDOG RESET POWER RECORD SCRIPT RUN ABORT"
#define OUTCOME_RUNNING 1
#define OUTCOME_DONE 2
#define OUTCOME_CUT 3
#define OUTCOME_RELEASED 4
#define SCRIPT_RUNNING 1
#define SCRIPT_DONE 2
#define SCRIPT_ABORTED 3
#define SCRIPT_CUT 4
#endif
