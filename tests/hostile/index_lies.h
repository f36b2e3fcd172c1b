/* index_lies.h — index plans (format 4.0) that lie consistently
 * (index_lies.c): one rank's section edited, or the same message edited
 * at both its ends, or the header's slot counts, every checksum and the
 * fingerprint made right again, as anyone who reads docs/plan-format.md
 * can. */
#ifndef RELAY_INDEX_LIES_H
#define RELAY_INDEX_LIES_H

/* Writes each lie to DIR/index/npN-BASE-LIE.plan (DIR/index made here);
 * *files counts them.  0 on success. */
int write_index_lies(const char *dir, int *files);

#endif
