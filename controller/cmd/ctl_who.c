/* SPDX-License-Identifier: MIT */
/*
 * Who asks for a change and what exactly: the OS user, the CN of the client
 * certificate the agents see, and the hash of the document they get, recorded with
 * the rollout beside --reason.
 */
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "controller/cmd/ctl.h"

static void os_user(char *buf, size_t size)
{
        struct passwd pw, *res = NULL;
        char tmp[1024];
        const char *sudo = getenv("SUDO_USER");

        if (getpwuid_r(getuid(), &pw, tmp, sizeof(tmp), &res) != 0 || !res)
                snprintf(buf, size, "uid %u", (unsigned)getuid());
        else
                snprintf(buf, size, "%s", res->pw_name);
        if (sudo && *sudo && !streq(sudo, buf)) {
                size_t len = strlen(buf);

                snprintf(buf + len, size - len, " (sudo: %.60s)", sudo);
        }
}

int ctl_cert_cn(const char *path, char *buf, size_t size)
{
        FILE *f = fopen(path, "re");
        X509 *x;
        int n;

        if (!f)
                return -errno;
        x = PEM_read_X509(f, NULL, NULL, NULL);
        fclose(f);
        if (!x)
                return -EINVAL;
        n = X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, buf, (int)size);
        X509_free(x);
        return n < 0 ? -ENOENT : 0;
}

int ctl_sha256(const char *doc, size_t len, char *buf, size_t size)
{
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned n = 0;

        if (size < 8 + 64 + 1 || !EVP_Digest(doc, len, md, &n, EVP_sha256(), NULL))
                return -EINVAL;
        memcpy(buf, "sha256:", 8);
        for (unsigned i = 0; i < n; i++)
                snprintf(buf + 7 + 2 * i, 3, "%02x", md[i]);
        return 0;
}

void ctl_who(struct ctl *c, const char *doc, struct rollout_opts *o)
{
        os_user(o->user, sizeof(o->user));
        if (c->inv && ctl_cert_cn(c->inv->cert, o->cert_cn, sizeof(o->cert_cn)) < 0)
                o->cert_cn[0] = '\0';
        if (doc && ctl_sha256(doc, strlen(doc), o->policy_sha256, sizeof(o->policy_sha256)) < 0)
                o->policy_sha256[0] = '\0';
}
