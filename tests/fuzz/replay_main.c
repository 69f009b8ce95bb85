/* replay_main.c -- runs a libFuzzer target over files without libFuzzer,
 * so the committed corpus is a regression test in every build (and under
 * the sanitizers in CI).  Usage: replay FILE_OR_DIR... */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  unsigned char *buf;
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
      fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "%s: cannot read\n", path);
    if (f)
      fclose(f);
    return 1;
  }
  buf = malloc((size_t)n + 1);
  if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(buf);
    fclose(f);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t)n);
  free(buf);
  return 0;
}

int main(int argc, char **argv)
{
  int i, files = 0, bad = 0;
  for (i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "%s: no such file\n", argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d)) != NULL) {
        char path[4096];
        if (e->d_name[0] == '.')
          continue;
        snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
        bad += run_file(path);
        files++;
      }
      if (d)
        closedir(d);
    } else {
      bad += run_file(argv[i]);
      files++;
    }
  }
  printf("%d inputs replayed\n", files);
  return bad || files == 0;
}
