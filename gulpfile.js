const { src, dest } = require('gulp');

/** tsc compiles the TypeScript; n8n also needs the icons and the codex files beside the compiled nodes. */
function copyAssets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg}', 'icons/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest('dist'),
	);
}

exports['build:assets'] = copyAssets;
