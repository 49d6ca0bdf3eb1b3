/* A secret read from a file its owner alone may open (see secret_file.h). */
#include <config.h>

#include "common/secret_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `fd` is a regular file only its owner may use; says why not. */
static int owner_only(int fd, char *why, size_t cap)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(why, cap, "cannot be read: %s", strerror(errno));
        return 0;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(why, cap, "is not a regular file");
        return 0;
    }
    if ((sb.st_mode & 077) != 0) {
        snprintf(why, cap,
                 "is readable or writable by group or others (mode %04o): run chmod 600 on it",
                 (unsigned)(sb.st_mode & 07777));
        return 0;
    }
    if (sb.st_size > COMMON_SECRET_FILE_MAX) {
        snprintf(why, cap, "is larger than %d bytes: not a key", COMMON_SECRET_FILE_MAX);
        return 0;
    }
    return 1;
}

/* The key in `text` (`len` bytes): one line, its final line end dropped.
 * Says why not. */
static int one_line(char *text, size_t len, char *why, size_t cap)
{
    if (len > 0 && text[len - 1] == '\n')
        len--;
    if (len > 0 && text[len - 1] == '\r')
        len--;
    text[len] = '\0';
    if (len == 0) {
        snprintf(why, cap, "is empty");
        return 0;
    }
    if (strlen(text) != len || strpbrk(text, "\r\n") != NULL) {
        snprintf(why, cap, "holds more than one line or a NUL byte: a key is one line");
        return 0;
    }
    return 1;
}

/* Zero `len` bytes at `p`; volatile, so that the wipe of memory about to
 * be freed is not elided. */
static void wipe(char *p, size_t len)
{
    for (volatile char *at = p; len > 0; len--)
        *at++ = '\0';
}

int common_secret_file_read(const char *path, char **out, char *why, size_t cap)
{
    *out = NULL;
    /* Non-blocking: a FIFO is refused, never waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, cap, "cannot be opened: %s", strerror(errno));
        return 0;
    }
    if (!owner_only(fd, why, cap)) {
        close(fd);
        return 0;
    }
    const size_t room = COMMON_SECRET_FILE_MAX + 2; /* a byte too many, and the NUL */
    char *text = calloc(1, room);
    if (text == NULL) {
        close(fd);
        snprintf(why, cap, "cannot be read: out of memory");
        return 0;
    }
    size_t len = 0;
    ssize_t got = 1;
    while (got > 0 && len < room - 1) {
        got = read(fd, text + len, room - 1 - len);
        if (got > 0)
            len += (size_t)got;
        else if (got < 0 && errno == EINTR)
            got = 1;
    }
    int saved = errno;
    close(fd);
    if (got < 0)
        snprintf(why, cap, "cannot be read: %s", strerror(saved));
    else if (len > COMMON_SECRET_FILE_MAX)
        snprintf(why, cap, "is larger than %d bytes: not a key", COMMON_SECRET_FILE_MAX);
    else if (one_line(text, len, why, cap)) {
        *out = text;
        return 1;
    }
    wipe(text, room);
    free(text);
    return 0;
}

void common_secret_free(char *secret)
{
    if (secret == NULL)
        return;
    wipe(secret, strlen(secret));
    free(secret);
}
