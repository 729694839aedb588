#define _GNU_SOURCE
#include "svg_shim.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reading librsvg's three exported version words from its file costs well under a
   millisecond; opening it maps some forty libraries (about 10 ms), which
   `imgscale --version` must not spend. Only 64-bit little-endian ELF is read, with
   every offset checked against the file's size: anything else answers -1 and the
   caller opens the library instead. */

static int in_file(size_t size, uint64_t offset, uint64_t length) {
    return offset <= size && length <= size - offset;
}

/* The value of the 4-byte object `name` exports, read from `path`. */
static int read_exported_u32(const char *path, const char *name, unsigned *value) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    const uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) return -1;
    int found = -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)file;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        goto done;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(file + eh->e_shoff);
    for (unsigned s = 0; s < eh->e_shnum && found != 0; s++) {
        const Elf64_Shdr *symtab = &sections[s];
        if (symtab->sh_type != SHT_DYNSYM || symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_link >= eh->e_shnum ||
            !in_file(size, symtab->sh_offset, symtab->sh_size))
            continue;
        const Elf64_Shdr *strtab = &sections[symtab->sh_link];
        if (!in_file(size, strtab->sh_offset, strtab->sh_size)) continue;
        const Elf64_Sym *symbols = (const Elf64_Sym *)(file + symtab->sh_offset);
        const char *names = (const char *)(file + strtab->sh_offset);
        size_t length = strlen(name);
        for (size_t i = 0; i < symtab->sh_size / sizeof(Elf64_Sym) && found != 0; i++) {
            const Elf64_Sym *sym = &symbols[i];
            if (sym->st_size != 4 || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= eh->e_shnum ||
                sym->st_name + length + 1 > strtab->sh_size || memcmp(names + sym->st_name, name, length + 1) != 0)
                continue;
            /* The symbol's address, made a file offset through the section holding it. */
            const Elf64_Shdr *home = &sections[sym->st_shndx];
            if (home->sh_type == SHT_NOBITS || sym->st_value < home->sh_addr) continue;
            uint64_t offset = home->sh_offset + (sym->st_value - home->sh_addr);
            if (!in_file(size, offset, 4)) continue;
            memcpy(value, file + offset, 4);
            found = 0;
        }
    }
done:
    munmap((void *)file, size);
    return found;
}

int csvg_version_from_file(char *out, size_t out_size) {
    /* librsvg sits beside libc in the multiarch directory Debian and Ubuntu use. */
    Dl_info libc;
    if (!dladdr((void *)&fopen, &libc) || !libc.dli_fname) return -1;
    const char *slash = strrchr(libc.dli_fname, '/');
    if (!slash) return -1;
    char path[4096];
    if (snprintf(path, sizeof path, "%.*s/librsvg-2.so.2", (int)(slash - libc.dli_fname), libc.dli_fname) >= (int)sizeof path)
        return -1;
    unsigned major, minor, micro;
    if (read_exported_u32(path, "rsvg_major_version", &major) || read_exported_u32(path, "rsvg_minor_version", &minor) ||
        read_exported_u32(path, "rsvg_micro_version", &micro))
        return -1;
    snprintf(out, out_size, "%u.%u.%u", major, minor, micro);
    return 0;
}
