# Writes a file's text as a C array of lines (one string per line, NULL at the end; a single
# literal would pass the 4095 characters C11 guarantees): embed.py INPUT OUTPUT SYMBOL
import sys
text = open(sys.argv[1], encoding='utf-8').read()
with open(sys.argv[2], 'w', encoding='utf-8') as out:
    out.write('/* Generated from %s by embed.py; do not edit. */\n' % sys.argv[1].split('/')[-1])
    out.write('#include <stddef.h>\n')
    out.write('extern const char *const %s[];\nconst char *const %s[] = {\n' % (sys.argv[3], sys.argv[3]))
    for line in text.splitlines(True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
        out.write('    "%s",\n' % esc)
    out.write('    NULL,\n};\n')
