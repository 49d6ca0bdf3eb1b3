/* RFC 3339 times (see iso_time.h). */
#include <config.h>

#include "common/iso_time.h"

#include <stddef.h>

/* The value of `n` decimal digits at *p (advanced past them); -1 when one
 * of them is not a digit. */
static int digits(const char **p, int n)
{
    int value = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        value = value * 10 + (**p - '0');
    }
    return value;
}

/* 1 when *p is `c` (then advanced past it). */
static int expect(const char **p, char c)
{
    if (**p != c)
        return 0;
    (*p)++;
    return 1;
}

/* Days from 1970-01-01 to the given civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

int common_time_parse_rfc3339(const char *text, int64_t *ms)
{
    if (text == NULL)
        return 0;
    const char *p = text;
    int y = digits(&p, 4), mo = -1, d = -1, h = -1, mi = -1, s = -1;
    if (y >= 0 && expect(&p, '-'))
        mo = digits(&p, 2);
    if (mo >= 0 && expect(&p, '-'))
        d = digits(&p, 2);
    if (d >= 0 && (expect(&p, 'T') || expect(&p, 't')))
        h = digits(&p, 2);
    if (h >= 0 && expect(&p, ':'))
        mi = digits(&p, 2);
    if (mi >= 0 && expect(&p, ':'))
        s = digits(&p, 2);
    if (s < 0 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
        s > 60)
        return 0;
    int millis = 0;
    if (expect(&p, '.')) {
        int n = 0;
        for (; *p >= '0' && *p <= '9'; p++, n++)
            if (n < 3)
                millis = millis * 10 + (*p - '0');
        if (n == 0)
            return 0;
        for (; n < 3; n++)
            millis *= 10;
    }
    int offset_minutes = 0;
    if (!expect(&p, 'Z') && !expect(&p, 'z')) {
        int sign = *p == '+' ? 1 : *p == '-' ? -1 : 0;
        if (sign == 0)
            return 0;
        p++;
        int oh = digits(&p, 2), om = -1;
        if (oh >= 0 && expect(&p, ':'))
            om = digits(&p, 2);
        if (om < 0 || oh > 23 || om > 59)
            return 0;
        offset_minutes = sign * (oh * 60 + om);
    }
    if (*p != '\0')
        return 0;
    int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s -
                      (int64_t)offset_minutes * 60;
    *ms = seconds * 1000 + millis;
    return 1;
}
