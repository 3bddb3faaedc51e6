/*
 * rules_registry.c - the list of every game the rules core knows.
 * A new game adds its header and one line here.
 */
#include "rules.h"
#include "rollerball.h"
#include "ultima.h"

const rules_variant *const rules_variants[] = {
    &ultima_variant,
    &ultima1968_variant,
    &rollerball_variant,
    NULL,
};
