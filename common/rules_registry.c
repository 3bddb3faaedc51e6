/*
 * rules_registry.c - the list of every game the rules core knows.
 * A new game adds its header and one line here.
 */
#include "rules.h"
#include "rollerball.h"

const rules_variant *const rules_variants[] = {
    &rollerball_variant,
    NULL,
};
