import sharp from 'sharp';
const [src, dst] = process.argv.slice(2);
await sharp(src).rotate().resize(900, 900, { fit: 'inside' }).png().toFile(dst!);
