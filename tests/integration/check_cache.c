/* check_cache.c -- verifies every entry of a compile cache folder
 * (tn_compile_cache_check; with KEYFILE, its MAC by that key too) and
 * that no temporary is left behind.  Prints "entries N" and exits 0, or
 * names each bad file and exits 1. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/compile.h"

int main(int argc, char **argv)
{
  DIR *d;
  struct dirent *e;
  tn_mac_key key;
  tn_err err = {{0}};
  int n = 0, bad = 0;

  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: check_cache DIR [KEYFILE]\n");
    return 2;
  }
  if (argc == 3 && tn_mac_key_read("key", argv[2], &key, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    return 2;
  }
  d = opendir(argv[1]);
  if (d == NULL) {
    perror(argv[1]);
    return 1;
  }
  while ((e = readdir(d)) != NULL) {
    char path[4200], why[256];
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".tnc") != 0) {
      printf("BAD %s: not a cache entry (a temporary left behind?)\n", path);
      bad++;
      continue;
    }
    n++;
    if (tn_compile_cache_check(path, argc == 3 ? &key : NULL, why,
                               sizeof(why)) != 0) {
      printf("BAD %s: %s\n", path, why);
      bad++;
    }
  }
  closedir(d);
  printf("entries %d\n", n);
  return bad ? 1 : 0;
}
