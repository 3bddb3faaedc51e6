/*
 * test_mail.c - the text of a mail (mail_format): the headers, the
 * unsubscribe headers of RFC 8058 and the footer's link, CRLF line ends,
 * a stable Message-ID, and no header injection through a subject.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mail.h"

static store_mail_row row(const char *unsub)
{
    store_mail_row r = {
        .id = 42,
        .account = 7,
        .created_ms = 1700000000000,
        .kind = "move",
        .to = "alice@example.org",
        .subject = "Your move in Ultima #3",
        .body = "bob has moved.\nPlay: https://chess.example/#/game/3\n",
    };
    strcpy(r.unsub, unsub);
    return r;
}

static void test_headers_and_footer(void **state)
{
    (void)state;
    store_mail_row r = row("0123456789abcdef0123456789abcdef");
    char *m = mail_format(&r, "chameleon@example.org", "https://chess.example", 1700000000000);
    assert_non_null(m);
    assert_non_null(strstr(m, "Date: Tue, 14 Nov 2023 22:13:20 +0000\r\n"));
    assert_non_null(strstr(m, "From: chameleon <chameleon@example.org>\r\n"));
    assert_non_null(strstr(m, "To: <alice@example.org>\r\n"));
    assert_non_null(strstr(m, "Subject: Your move in Ultima #3\r\n"));
    assert_non_null(strstr(m, "Message-ID: <chameleon.42.1700000000000@example.org>\r\n"));
    assert_non_null(strstr(m, "Content-Type: text/plain; charset=UTF-8\r\n"));
    assert_non_null(strstr(m, "List-Unsubscribe: <https://chess.example/api/mail/unsubscribe/"
                              "0123456789abcdef0123456789abcdef>\r\n"));
    assert_non_null(strstr(m, "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"));
    /* The body after the blank line, with CRLF, and the footer's link. */
    const char *body = strstr(m, "\r\n\r\n");
    assert_non_null(body);
    assert_non_null(strstr(body, "bob has moved.\r\nPlay: https://chess.example/#/game/3\r\n"));
    assert_non_null(strstr(body, "one click: https://chess.example/api/mail/unsubscribe/"
                                 "0123456789abcdef0123456789abcdef\r\n"));
    /* No bare LF anywhere. */
    for (const char *p = m; *p; p++)
        if (*p == '\n')
            assert_true(p > m && p[-1] == '\r');
    free(m);
}

static void test_no_unsubscribe_without_token(void **state)
{
    (void)state;
    store_mail_row r = row("");
    char *m = mail_format(&r, "chameleon@example.org", "https://chess.example", 0);
    assert_non_null(m);
    assert_null(strstr(m, "List-Unsubscribe"));
    assert_null(strstr(m, "/api/mail/unsubscribe/"));
    free(m);
}

static void test_subject_injection(void **state)
{
    (void)state;
    store_mail_row r = row("");
    r.subject = "Hi\r\nBcc: eve@example.org";
    char *m = mail_format(&r, "chameleon@example.org", "https://chess.example", 0);
    assert_non_null(m);
    assert_non_null(strstr(m, "Subject: Hi  Bcc: eve@example.org\r\n"));
    assert_null(strstr(m, "\r\nBcc:"));
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_and_footer),
        cmocka_unit_test(test_no_unsubscribe_without_token),
        cmocka_unit_test(test_subject_injection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
